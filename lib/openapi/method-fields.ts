// Where a route's method goes in a Path Item, by OpenAPI version. 3.1 has a field for eight
// methods; 3.2 adds `query` and puts any other method under `additionalOperations`, keyed by the
// method as sent. A route a 3.1 document cannot hold is never left out silently: building the
// document (and registering docs()) throws, naming the route and the two ways out.
import type { RouteDefinition } from "../index.js";
import type { OpenApiMethod, OpenApiVersion } from "./types.js";

export const OPENAPI_VERSIONS: readonly OpenApiVersion[] = ["3.1.0", "3.2.0"];

const FIELDS_3_1 = new Set<string>(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** A fixed Path Item field, or the `additionalOperations` key (3.2), or null when the version has no place for it. */
export type MethodPlace = { field: OpenApiMethod } | { additional: string } | null;

/** Where `method` (upper case, as routed) is written in a Path Item of `version`. */
export function methodPlace(method: string, version: OpenApiVersion): MethodPlace {
  const lower = method.toLowerCase();
  if (FIELDS_3_1.has(lower)) return { field: lower as OpenApiMethod };
  if (version === "3.1.0") return null;
  return lower === "query" ? { field: "query" } : { additional: method };
}

/** The version option, checked (default "3.1.0"). */
export function openApiVersion(value: unknown): OpenApiVersion {
  if (value === undefined) return "3.1.0";
  if (!OPENAPI_VERSIONS.includes(value as OpenApiVersion)) {
    throw new TypeError(`keel/openapi: openapi must be one of ${OPENAPI_VERSIONS.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as OpenApiVersion;
}

/** Throws when a visible route's method has no place in a document of `version`. */
export function checkDocumentedMethods(routes: readonly RouteDefinition[], version: OpenApiVersion): void {
  const refused: string[] = [];
  for (const def of routes) {
    if (def.meta.hidden !== true && methodPlace(def.method, version) === null) refused.push(`${def.method} ${def.pattern}`);
  }
  if (refused.length === 0) return;
  throw new TypeError(
    `keel/openapi: an OpenAPI ${version} document has no place for ${refused.join(", ")} (its Path Item holds only ` +
      `get, put, post, delete, options, head, patch and trace); write the document as OpenAPI 3.2 ` +
      `(docs(path, { openapi: "3.2.0" }): query and additionalOperations), or leave the route out ({ hidden: true })`,
  );
}
