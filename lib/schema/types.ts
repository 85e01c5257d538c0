// Public types of the schema module: the JSON Schema value, the phantom static type carried by
// `t` schemas, field errors and the compiled-validator contract.
import type { JsonSchema } from "./json-schema.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";

export type { JsonSchema };
export type { StandardJSONSchemaV1, StandardSchemaV1, StandardTypedV1 } from "./standard-schema.js";

/** What keel's extractors and declared responses take: a JSON Schema (`t` included) or any Standard Schema. */
export type AnySchema = JsonSchema | StandardSchemaV1;

/** Phantom key: exists only in types, never on the runtime object. */
export declare const kStatic: unique symbol;

/**
 * A schema object that also carries the TypeScript type of the values it accepts. At run time it
 * is a plain JSON Schema with a non-enumerable `~standard` (Standard Schema and Standard JSON
 * Schema, vendor "keel"), invisible to JSON and to `Object.keys`.
 */
export type TSchema<T = unknown> = { readonly [k: string]: unknown } & { readonly [kStatic]: T } & {
  readonly "~standard": StandardSchemaV1.Props<T> & StandardJSONSchemaV1.Props<T>;
};

type StandardTypes<S> = S extends { readonly "~standard": { readonly types?: infer X } } ? NonNullable<X> : never;

/** Static type of a `t` schema; a Standard Schema's output type; `unknown` for raw JSON Schema. */
export type Static<S> = S extends { readonly [kStatic]: infer T }
  ? T
  : [StandardTypes<S>] extends [never]
    ? unknown
    : StandardTypes<S> extends { readonly output: infer O } ? O : unknown;

/** What a client sends for a schema: a Standard Schema's input type, else `Static<S>`. */
export type StaticInput<S> = S extends { readonly [kStatic]: infer T }
  ? T
  : [StandardTypes<S>] extends [never]
    ? unknown
    : StandardTypes<S> extends { readonly input: infer I } ? I : unknown;

/** One failed rule (SPEC "Validation field item"). `field` is "" for the root value; callers prefix. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** Where `$ref`s to other documents resolve: keel/schema's SchemaRegistry (only its engine reads it). */
export interface SchemaResolver {
  resolve(ref: string, base: string): { schema: JsonSchema; base: string } | undefined;
}

export interface CompileOptions {
  /** Coerce string inputs (query/path/header) to the schema's scalar types; wrap single values into arrays. */
  coerce?: boolean;
  /** Fill `default`s of missing properties into objects (in place). */
  useDefaults?: boolean;
  /** "assert" (default) checks the formats we claim; "annotate" ignores `format` like plain 2020-12. */
  formats?: "assert" | "annotate";
  /** Cap on reported field errors (default 100). */
  maxErrors?: number;
  /** Where `$ref`s to other documents (by `$id`) are resolved: a SchemaRegistry from keel/schema. */
  registry?: SchemaResolver;
  /** Named schemas reachable as `#/components/schemas/<name>` (what `t.ref("Name")` emits). */
  components?: Readonly<Record<string, JsonSchema>>;
  /** Generate validation code with `new Function` (default true); false forces closure compilation. */
  codegen?: boolean;
  /** Bound on nested `$ref` evaluation per value (default 512): hostile deep instances fail, never crash. */
  maxRefDepth?: number;
}

export interface AsyncRuleAdapters {
  db?: { isUnique(table: string, column: string, value: unknown): Promise<boolean> };
  custom?: Readonly<Record<string, (value: unknown) => Promise<{ code: string; message: string } | null>>>;
}

export interface CompiledSchema<T = unknown> {
  readonly schema: JsonSchema;
  /** `null` when valid. With coerce/useDefaults on, objects and arrays are changed in place. */
  validate(value: unknown): FieldError[] | null;
  /** Type guard form of `validate` for callers that do not need the errors. */
  is(value: unknown): value is T;
  /** Coerce a top-level scalar given as a string ("42" -> 42); returns the input unchanged when not applicable. */
  coerce(value: unknown): unknown;
  readonly hasAsyncRules: boolean;
  /** Runs the async rules (call only after `validate` returned null). Resolves to the failed rules, [] when all pass. */
  runAsync(value: unknown, adapters: AsyncRuleAdapters, timeoutMs?: number): Promise<FieldError[]>;
}
