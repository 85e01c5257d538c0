// The JSON Schema value itself, in a file of its own so the registry and the public types can
// both name it without importing each other.

/** Any JSON Schema 2020-12 document or subschema (objects and the boolean schemas). */
export type JsonSchema = boolean | { readonly [k: string]: unknown };
