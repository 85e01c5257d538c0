// The OpenAPI picture of a multipart body: one object whose properties are the text fields (from
// the fields schema) and the declared file fields as `{ type: "string", format: "binary" }`.
import type { AnySchema, JsonSchema, StandardJSONSchemaV1 } from "../../index.js";
import { foreignSchema } from "../../plugin.js";

/** The JSON Schema another library's fields schema offers (Standard JSON Schema), if it offers one that converts. */
function offered(fields: AnySchema): JsonSchema | undefined {
  const foreign = foreignSchema(fields);
  if (foreign === null) return fields as JsonSchema;
  try {
    return (foreign["~standard"] as Partial<StandardJSONSchemaV1.Props>).jsonSchema?.input({ target: "draft-2020-12" });
  } catch {
    return undefined; // documented without its text fields, never refused for the docs' sake
  }
}

export function multipartDocSchema(schema: AnySchema | undefined, fileNames: readonly string[]): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const fields = schema === undefined ? undefined : offered(schema);
  if (typeof fields === "object" && fields !== null) {
    const props = fields["properties"];
    if (typeof props === "object" && props !== null) Object.assign(properties, props);
    const req = fields["required"];
    if (Array.isArray(req)) for (const name of req) if (typeof name === "string") required.push(name);
  }
  for (const name of fileNames) properties[name] = { type: "string", format: "binary" };
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}
