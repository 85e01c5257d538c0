// keel's `t` schemas as Standard Schema and Standard JSON Schema (vendor "keel"), so any library
// that takes a Standard Schema takes them. `~standard` is a non-enumerable getter shared by every
// schema: nothing is built until a library reads it, and the validator is compiled on the first
// `validate` (the kernel's compiler, or keel/schema's engine when it is loaded).
import { compileSchema } from "./use-schemas.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";
import type { CompiledSchema, FieldError, JsonSchema } from "./types.js";

const KEY = "~standard";
const SEGMENT = /^(?:\.?([A-Za-z_$][A-Za-z0-9_$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** keel's field notation (`items[2].name`, `a["b c"]`) back into a path of keys. */
function fieldKeys(field: string): PropertyKey[] {
  const keys: PropertyKey[] = [];
  let rest = field;
  while (rest !== "") {
    const m = SEGMENT.exec(rest);
    if (m === null) return [field]; // not keel's notation: the text as one key
    keys.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]!) as string)));
    rest = rest.slice(m[0].length);
  }
  return keys;
}

function result(value: unknown, errors: readonly FieldError[] | null): StandardSchemaV1.Result<unknown> {
  if (errors === null || errors.length === 0) return { value };
  return { issues: errors.map((e) => ({ message: e.message, path: fieldKeys(e.field) })) };
}

/** The schema as plain JSON (keel's `x-keel-*` keywords hold functions and stay out). */
function toJson(schema: JsonSchema, options: StandardJSONSchemaV1.Options): Record<string, unknown> {
  if (options?.target !== "draft-2020-12") {
    throw new TypeError(`keel schemas are JSON Schema draft 2020-12; target ${JSON.stringify(options?.target)} is not supported`);
  }
  const text = JSON.stringify(schema, (key, v: unknown) => (key.startsWith("x-keel-") ? undefined : v));
  return typeof schema === "boolean" ? (schema ? {} : { not: {} }) : (JSON.parse(text) as Record<string, unknown>);
}

function props(schema: JsonSchema): StandardSchemaV1.Props & StandardJSONSchemaV1.Props {
  let compiled: CompiledSchema | null = null;
  const convert = (options: StandardJSONSchemaV1.Options): Record<string, unknown> => toJson(schema, options);
  return {
    version: 1,
    vendor: "keel",
    validate(value) {
      compiled ??= compileSchema(schema);
      const errors = compiled.validate(value);
      if (errors !== null || !compiled.hasAsyncRules) return result(value, errors);
      return compiled.runAsync(value, {}).then((late) => result(value, late));
    },
    jsonSchema: { input: convert, output: convert },
  };
}

function getStandard(this: object): unknown {
  const value = props(this as JsonSchema);
  Object.defineProperty(this, KEY, { value, configurable: true });
  return value;
}

/** Gives `schema` its (lazy, non-enumerable) `~standard`; returns it. */
export function withStandard<S>(schema: S): S {
  if (typeof schema === "object" && schema !== null && Object.isExtensible(schema) && !Object.hasOwn(schema, KEY)) {
    Object.defineProperty(schema, KEY, { get: getStandard, configurable: true });
  }
  return schema;
}
