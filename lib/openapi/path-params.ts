// Path parameter schemas: an explicit `meta.params` override wins, then the extractor's schema,
// then the parameter's name decides (SPEC "Path parameter schema inference").

/** Schema for one override value (SPEC "Allowed override values"); unknown values document a string. */
export function paramOverrideSchema(override: string): Record<string, unknown> {
  switch (override) {
    case "uuid":
      return { type: "string", format: "uuid" };
    case "integer":
    case "int":
    case "int64":
      return { type: "integer", format: "int64" };
    case "int32":
      return { type: "integer", format: "int32" };
    case "number":
    case "float":
      return { type: "number" };
    case "boolean":
    case "bool":
      return { type: "boolean" };
    default:
      return { type: "string" };
  }
}

/** `uuid`, `user_uuid`, `userUuid`, `UUID`...: every name ending in "uuid", any case. */
function isUuidName(name: string): boolean {
  return name.toLowerCase().endsWith("uuid");
}

/** `id`, `user_id`, `postId`, `userID`: the name is "id" or ends in `_id`/`Id`/`ID` (not `paid`). */
function isIdName(name: string): boolean {
  if (name.toLowerCase() === "id") return true;
  return name.endsWith("_id") || name.endsWith("_ID") || name.endsWith("Id") || name.endsWith("ID");
}

/** The schema a path parameter gets from its name alone. */
export function inferPathParamSchema(name: string): Record<string, unknown> {
  if (isUuidName(name)) return { type: "string", format: "uuid" };
  if (isIdName(name)) return { type: "integer", format: "int64" };
  return { type: "string" };
}

/** One `{name}` / `{*name}` of a route pattern, with the name the OpenAPI path uses. */
export interface PathTemplateParam {
  /** Name in the route pattern (`*` for an anonymous wildcard). */
  routeName: string;
  /** Name in the OpenAPI path template and parameter list. */
  name: string;
  wildcard: boolean;
}

export interface PathTemplate {
  /** OpenAPI path (`/files/{rest}` for the route `/files/{*rest}`). */
  path: string;
  params: PathTemplateParam[];
}

const PLACEHOLDER = /\{(\*?)([^{}]*)\}/g;

/**
 * Turns a canonical keel pattern into an OpenAPI path template: wildcards `{*rest}` become `{rest}`,
 * the anonymous wildcard `{*}` becomes `{wildcard}` (or `{wildcard_2}`... if that name is taken).
 */
export function toOpenApiPath(pattern: string): PathTemplate {
  const taken = new Set<string>();
  for (const m of pattern.matchAll(PLACEHOLDER)) if (m[2] !== "*" && m[2] !== "") taken.add(m[2] ?? "");
  const params: PathTemplateParam[] = [];
  const path = pattern.replace(PLACEHOLDER, (_all, star: string, raw: string) => {
    const wildcard = star === "*";
    let name = raw;
    if (wildcard && (raw === "" || raw === "*")) {
      name = "wildcard";
      for (let i = 2; taken.has(name); i++) name = `wildcard_${i}`;
      taken.add(name);
    }
    params.push({ routeName: wildcard && raw === "" ? "*" : raw, name, wildcard });
    return `{${name}}`;
  });
  return { path, params };
}
