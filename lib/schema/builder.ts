// The `t` schema builder: each call returns a plain JSON Schema 2020-12 object whose type also
// carries the TypeScript type of the values it accepts (`Static<typeof S>`).
//
// Messages: every builder accepts `message` (used for any failed rule of that schema, emitted as the
// `x-message` keyword) and `messages` (per rule code, emitted as `x-messages`: {length: "...", ...}).
// The spec's rule options (`length`, `email`, `regex`, `range`) map onto the standard keywords and may
// carry their own message, which lands in `x-messages` under the rule code.
import type { JsonSchema, Static, TSchema } from "./types.js";
import type { AsyncRule } from "./async-rule.js";
import { isOptionalSchema, kOptional, kRefTarget, kSchemaName, schemaName, type TOptional } from "./schema-marks.js";
import { useSchemas } from "./use-schemas.js";
import { withStandard } from "./standard-out.js";

export { isOptionalSchema, kOptional, kRefTarget, kSchemaName, refTarget, schemaName, type TOptional } from "./schema-marks.js";

export interface SchemaAnnotations {
  title?: string;
  description?: string;
  examples?: readonly unknown[];
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  /** Message for any failed rule of this schema. */
  message?: string;
  /** Message per rule code (`length`, `email`, `range`, `regex`, `required`, `type`, `enum`, `format`, ...). */
  messages?: Readonly<Record<string, string>>;
  /** Async rules (`asyncUnique`, `customAsync`), run after every sync rule passed. */
  async?: readonly AsyncRule[];
}

export interface StringOptions extends SchemaAnnotations {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  default?: string;
  /** Spec rule `length`: min (and optionally max), optional message. */
  length?: { min?: number; max?: number; message?: string };
  /** Spec rule `email`. */
  email?: boolean | { message?: string };
  /** Spec rule `regex` (compiled with the `u` flag). */
  regex?: string | { pattern: string; message?: string };
}

export interface NumberOptions extends SchemaAnnotations {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  default?: number;
  /** Spec rule `range`: min, max (inclusive), optional message. */
  range?: { min?: number; max?: number; message?: string };
}

export interface ArrayOptions extends SchemaAnnotations {
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

export interface ObjectOptions extends SchemaAnnotations {
  /** false: unknown properties are an error; true (default): allowed; a schema: they must match it. */
  additionalProperties?: boolean | JsonSchema;
  minProperties?: number;
  maxProperties?: number;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** Property schemas: `t` schemas, or raw JSON Schema (typed `unknown`). */
type TProperties = { readonly [name: string]: JsonSchema };
type OptionalKeys<P> = { [K in keyof P]: P[K] extends { readonly [kOptional]: true } ? K : never }[keyof P];
type RequiredKeys<P> = Exclude<keyof P, OptionalKeys<P>>;
export type ObjectStatic<P> = Simplify<
  { [K in RequiredKeys<P>]: Static<P[K]> } & { [K in OptionalKeys<P>]?: Static<P[K]> }
>;
type Literal = string | number | boolean | null;

const ANNOTATION_KEYS = ["title", "description", "examples", "deprecated", "readOnly", "writeOnly", "default"] as const;
const IMMEDIATE_KEYS = [
  "minLength", "maxLength", "pattern", "format",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
] as const;

/** Copies standard keywords and turns the spec's rule options into keywords plus `x-messages`. */
function build<T>(base: Record<string, unknown>, options: object | undefined): TSchema<T> {
  useSchemas();
  const out: Record<string, unknown> = withStandard(base);
  if (options === undefined) return out as TSchema<T>;
  const o = options as Record<string, unknown> & StringOptions & NumberOptions;
  for (const key of IMMEDIATE_KEYS) if (o[key] !== undefined) out[key] = o[key];
  const messages: Record<string, string> = { ...o.messages };
  if (o.length !== undefined) {
    if (o.length.min !== undefined) out["minLength"] = o.length.min;
    if (o.length.max !== undefined) out["maxLength"] = o.length.max;
    if (o.length.message !== undefined) messages["length"] = o.length.message;
  }
  if (o.email !== undefined && o.email !== false) {
    out["format"] = "email";
    if (typeof o.email === "object" && o.email.message !== undefined) messages["email"] = o.email.message;
  }
  if (o.regex !== undefined) {
    out["pattern"] = typeof o.regex === "string" ? o.regex : o.regex.pattern;
    if (typeof o.regex === "object" && o.regex.message !== undefined) messages["regex"] = o.regex.message;
  }
  if (o.range !== undefined) {
    if (o.range.min !== undefined) out["minimum"] = o.range.min;
    if (o.range.max !== undefined) out["maximum"] = o.range.max;
    if (o.range.message !== undefined) messages["range"] = o.range.message;
  }
  for (const key of ANNOTATION_KEYS) if (o[key] !== undefined) out[key] = o[key];
  if (o.message !== undefined) out["x-message"] = o.message;
  if (Object.keys(messages).length > 0) out["x-messages"] = messages;
  if (o.async !== undefined && o.async.length > 0) out["x-keel-async"] = [...o.async];
  return out as TSchema<T>;
}

function integer(extra: Record<string, unknown>, options?: NumberOptions): TSchema<number> {
  return build<number>({ type: "integer", ...extra }, options);
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const t = {
  string: (options?: StringOptions): TSchema<string> => build<string>({ type: "string" }, options),
  /** Shorthand for `t.string({ email: ... })`. */
  email: (options?: Omit<StringOptions, "email"> & { message?: string }): TSchema<string> =>
    build<string>({ type: "string", format: "email" }, options),
  uuid: (options?: StringOptions): TSchema<string> => build<string>({ type: "string", format: "uuid" }, options),
  number: (options?: NumberOptions): TSchema<number> => build<number>({ type: "number" }, options),
  integer: (options?: NumberOptions): TSchema<number> => integer({}, options),
  /** Unsigned 64-bit id; capped at 2^53-1 because larger JSON numbers lose precision in JavaScript. */
  u64: (options?: NumberOptions): TSchema<number> => integer({ format: "int64", minimum: 0, maximum: MAX_SAFE }, options),
  u32: (options?: NumberOptions): TSchema<number> => integer({ format: "int64", minimum: 0, maximum: 4294967295 }, options),
  u16: (options?: NumberOptions): TSchema<number> => integer({ format: "int32", minimum: 0, maximum: 65535 }, options),
  u8: (options?: NumberOptions): TSchema<number> => integer({ format: "int32", minimum: 0, maximum: 255 }, options),
  i64: (options?: NumberOptions): TSchema<number> =>
    integer({ format: "int64", minimum: -MAX_SAFE, maximum: MAX_SAFE }, options),
  i32: (options?: NumberOptions): TSchema<number> =>
    integer({ format: "int32", minimum: -2147483648, maximum: 2147483647 }, options),
  boolean: (options?: SchemaAnnotations & { default?: boolean }): TSchema<boolean> => build<boolean>({ type: "boolean" }, options),
  null: (options?: SchemaAnnotations): TSchema<null> => build<null>({ type: "null" }, options),
  /** Accepts anything (`{}`), typed `unknown`. */
  unknown: (options?: SchemaAnnotations): TSchema<unknown> => build<unknown>({}, options),

  array: <S extends JsonSchema>(items: S, options?: ArrayOptions): TSchema<Static<S>[]> =>
    build<Static<S>[]>({ type: "array", items }, options),

  /** Fixed-length tuple via `prefixItems`. */
  tuple: <const S extends readonly JsonSchema[]>(items: S, options?: SchemaAnnotations): TSchema<{ -readonly [K in keyof S]: Static<S[K]> }> =>
    build({ type: "array", prefixItems: [...items], items: false, minItems: items.length }, options),

  object: <P extends TProperties>(properties: P, options?: ObjectOptions): TSchema<ObjectStatic<P>> => {
    const required = Object.keys(properties).filter((k) => !isOptionalSchema(properties[k]));
    const schema: Record<string, unknown> = { type: "object", properties: { ...properties } };
    if (required.length > 0) schema["required"] = required;
    if (options?.additionalProperties !== undefined) schema["additionalProperties"] = options.additionalProperties;
    if (options?.minProperties !== undefined) schema["minProperties"] = options.minProperties;
    if (options?.maxProperties !== undefined) schema["maxProperties"] = options.maxProperties;
    return build<ObjectStatic<P>>(schema, options);
  },

  /** Object with arbitrary keys whose values all match `values`. */
  record: <S extends JsonSchema>(values: S, options?: ObjectOptions): TSchema<Record<string, Static<S>>> =>
    build<Record<string, Static<S>>>({ type: "object", additionalProperties: values }, options),

  literal: <const V extends Literal>(value: V, options?: SchemaAnnotations): TSchema<V> =>
    build<V>({ ...(value === null ? {} : { type: typeof value }), const: value }, options),

  enum: <const V extends readonly Literal[]>(values: V, options?: SchemaAnnotations & { default?: V[number] }): TSchema<V[number]> => {
    const types = [...new Set(values.map((v) => (v === null ? "null" : typeof v)))];
    const base: Record<string, unknown> = { enum: [...values] };
    if (types.length === 1) base["type"] = types[0];
    return build<V[number]>(base, options);
  },

  union: <const S extends readonly JsonSchema[]>(variants: S, options?: SchemaAnnotations): TSchema<Static<S[number]>> =>
    build<Static<S[number]>>({ anyOf: [...variants] }, options),

  /** Adds `null` to the accepted values (`type: [..., "null"]` when possible, else `anyOf`). */
  nullable: <S extends JsonSchema>(schema: S): TSchema<Static<S> | null> => {
    useSchemas();
    if (typeof schema === "object" && typeof schema["type"] === "string" && schema["enum"] === undefined && schema["const"] === undefined) {
      return withStandard({ ...schema, type: [schema["type"], "null"] }) as unknown as TSchema<Static<S> | null>;
    }
    return withStandard({ anyOf: [schema, { type: "null" }] }) as unknown as TSchema<Static<S> | null>;
  },

  /** Marks an object property as optional (may be missing). */
  optional: <S extends { readonly [k: string]: unknown }>(schema: S): TOptional<S> => withStandard({ ...schema, [kOptional]: true }) as TOptional<S>,

  /** Gives a schema a component name: OpenAPI emits it once under components.schemas and `$ref`s it. */
  named: <S extends JsonSchema>(name: string, schema: S): S => {
    useSchemas();
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new TypeError(`schema name ${JSON.stringify(name)} must match [A-Za-z0-9._-]+`);
    const base: object = typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
    return withStandard({ ...base, [kSchemaName]: name }) as unknown as S;
  },

  /** `$ref` to a named schema: pass the schema itself, or its name (recursive schemas; compile with `components`). */
  ref: <S extends JsonSchema = TSchema<unknown>>(target: S | string): TSchema<Static<S>> => {
    useSchemas();
    const name = typeof target === "string" ? target : schemaName(target);
    if (name === undefined) throw new TypeError("t.ref needs a schema made with t.named(...) or a schema name");
    const out: Record<string, unknown> = { $ref: `#/components/schemas/${name}` };
    if (typeof target !== "string") Object.defineProperty(out, kRefTarget, { value: target, enumerable: false });
    return withStandard(out) as TSchema<Static<S>>;
  },

  /** Attach a static type to a raw JSON Schema. */
  unsafe: <T>(schema: Record<string, unknown>): TSchema<T> => {
    useSchemas();
    return withStandard(schema) as TSchema<T>;
  },
} as const;

