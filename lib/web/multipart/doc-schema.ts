// The OpenAPI picture of a multipart body: one object whose properties are the text fields (from
// the fields schema) and the declared file fields as `{ type: "string", format: "binary" }`.
import type { JsonSchema } from "../../index.js";

export function multipartDocSchema(fields: JsonSchema | undefined, fileNames: readonly string[]): JsonSchema {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (typeof fields === "object" && fields !== null) {
    const props = fields["properties"];
    if (typeof props === "object" && props !== null) Object.assign(properties, props);
    const req = fields["required"];
    if (Array.isArray(req)) for (const name of req) if (typeof name === "string") required.push(name);
  }
  for (const name of fileNames) properties[name] = { type: "string", format: "binary" };
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}
