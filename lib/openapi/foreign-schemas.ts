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

const COMPONENT = "#/components/schemas/";
/** Deeper than this is a cyclic or absurd schema, not documentation. */
const MAX_DEPTH = 200;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A component name from a `$defs` key or a route (`^[A-Za-z0-9._-]+$`). */
export function componentName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^_+|_+$/g, "") || "Schema";
}

/**
 * A converted schema is a document of its own: its local references (`#/$defs/Tag`, `#` for
 * recursion to its root) would point into the OpenAPI document once embedded. Its `$defs` become
 * components (`#/components/schemas/Tag`; two different schemas under one name fail the
 * document), and a root that refers to itself becomes the component `rootName`.
 */
export function hoistLocalRefs(schema: Record<string, unknown>, rootName: string, define: (name: string, schema: JsonSchema) => void): JsonSchema {
  let usesRoot = false;
  const defName = (pointer: string): string => componentName(decodeURIComponent(pointer).replace(/~1/g, "/").replace(/~0/g, "~"));
  const rewrite = (node: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new RangeError("keel openapi: a converted schema is nested too deeply (cyclic?)");
    if (Array.isArray(node)) return node.map((n) => rewrite(n, depth + 1));
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === "$defs" && depth === 0) continue;
      if (key === "$ref" && typeof value === "string") {
        if (value === "#") {
          usesRoot = true;
          out[key] = COMPONENT + rootName;
          continue;
        }
        if (value.startsWith("#/$defs/")) {
          out[key] = COMPONENT + defName(value.slice(8));
          continue;
        }
      }
      out[key] = rewrite(value, depth + 1);
    }
    return out;
  };
  const root = rewrite(schema, 0) as Record<string, unknown>;
  const defs = schema["$defs"];
  if (isObject(defs)) for (const name of Object.keys(defs)) define(defName(name), rewrite(defs[name], 1) as JsonSchema);
  if (!usesRoot) return root;
  define(rootName, root);
  return { $ref: COMPONENT + rootName };
}
