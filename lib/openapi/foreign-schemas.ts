// Other libraries' schemas (Standard Schema) in the document: their own Standard JSON Schema
// (`~standard.jsonSchema.input` for requests, `.output` for responses, draft 2020-12), never a
// reading of the validator's internals. A schema that offers none stops the document naming the
// route and the schema, unless docs() was told `unconstrainedSchemas: true`.
import type { JsonSchema } from "../index.js";
import { describeForeign, foreignSchema, type AnySchema, type StandardJSONSchemaV1 } from "../plugin.js";

export type SchemaDirection = "input" | "output";

/** A schema given to an extractor or a declared response, as the JSON Schema to document. */
export function documentedSchema(schema: AnySchema, direction: SchemaDirection, where: string, unconstrained: boolean): JsonSchema {
  const foreign = foreignSchema(schema);
  if (foreign === null) return schema as JsonSchema;
  const what = describeForeign(foreign);
  const converter = (foreign["~standard"] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  const convert = converter?.[direction];
  if (typeof convert !== "function") {
    if (unconstrained) return { description: `Validated by ${what}, which offers no JSON Schema` };
    throw new TypeError(
      `keel openapi: ${where}: ${what} offers no Standard JSON Schema (~standard.jsonSchema.${direction}), so it cannot be documented; ` +
        "use a schema that offers it (valibot: toStandardJsonSchema() from @valibot/to-json-schema) or mount docs() with { unconstrainedSchemas: true } to document it as unconstrained",
    );
  }
  let out: unknown;
  try {
    out = convert({ target: "draft-2020-12" });
  } catch (err) {
    throw new TypeError(`keel openapi: ${where}: ${what} could not describe itself as JSON Schema: ${(err as Error).message}`);
  }
  if (typeof out !== "object" || out === null || Array.isArray(out)) {
    throw new TypeError(`keel openapi: ${where}: ${what} returned no JSON Schema object from ~standard.jsonSchema.${direction}`);
  }
  // `$schema` names the dialect, which the OpenAPI 3.1 document already fixes.
  const { $schema: _, ...rest } = out as Record<string, unknown>;
  return rest;
}
