// The runtime marks `t` leaves on schemas (symbols: invisible to JSON and to the validator), in a
// file of their own so the compilers can read them without importing the builder.
import type { JsonSchema } from "./types.js";

/** Runtime marker set by `t.optional` (a symbol: invisible to JSON and to the validator). */
export const kOptional: unique symbol = Symbol("keel.schema.optional");
/** Runtime marker set by `t.named`: the OpenAPI generator hoists these into components.schemas. */
export const kSchemaName: unique symbol = Symbol("keel.schema.name");

/** Hidden link from a `t.ref(schema)` to its target, so validation needs no `components` option. */
export const kRefTarget: unique symbol = Symbol("keel.schema.refTarget");

export function refTarget(schema: object): JsonSchema | undefined {
  return (schema as { [kRefTarget]?: JsonSchema })[kRefTarget];
}

export type TOptional<S> = S & { readonly [kOptional]: true };

/** The component name given by `t.named`, if any. */
export function schemaName(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const name = (schema as { [kSchemaName]?: unknown })[kSchemaName];
  return typeof name === "string" ? name : undefined;
}

/** Whether `t.optional` wrapped this schema (a property that may be missing). */
export function isOptionalSchema(schema: unknown): boolean {
  return typeof schema === "object" && schema !== null && (schema as { [kOptional]?: unknown })[kOptional] === true;
}
