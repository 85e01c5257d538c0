// Dangling reference check for a generated document: every local `$ref` must point at something in
// the document, and every security requirement must name a declared security scheme.

const MAX_DEPTH = 512;

function isObject(v: unknown): v is { readonly [k: string]: unknown } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Resolves a local JSON pointer (`#/components/schemas/User`) in `doc`. */
function pointerExists(doc: unknown, ref: string): boolean {
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return false;
  }
  if (pointer === "") return true;
  if (!pointer.startsWith("/")) return false;
  let node: unknown = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return false;
      node = node[Number(token)];
    } else if (isObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return false;
    }
  }
  return true;
}

/**
 * Problems with references in `doc`, one line each (`#/components/schemas/X (at /paths/...)`).
 * Refs to other documents (`https://...`) are not checked: keel emits only local ones.
 */
export function findDanglingRefs(doc: unknown): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, at: string, depth: number): void => {
    if (depth > MAX_DEPTH) {
      problems.push(`document nested too deeply (at ${at})`);
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((v, i) => walk(v, `${at}/${i}`, depth + 1));
      return;
    }
    if (!isObject(node)) return;
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === "$ref" && typeof value === "string" && value.startsWith("#") && !pointerExists(doc, value)) {
        problems.push(`${value} (at ${at === "" ? "/" : at})`);
      }
      walk(value, `${at}/${escapeToken(key)}`, depth + 1);
    }
  };
  walk(doc, "", 0);

  if (isObject(doc)) {
    const components = isObject(doc["components"]) ? doc["components"] : {};
    const schemes = isObject(components["securitySchemes"]) ? components["securitySchemes"] : {};
    const checkRequirements = (list: unknown, at: string): void => {
      if (!Array.isArray(list)) return;
      for (const requirement of list) {
        if (!isObject(requirement)) continue;
        for (const name of Object.keys(requirement)) {
          if (!Object.hasOwn(schemes, name)) problems.push(`security scheme "${name}" is not in components.securitySchemes (at ${at})`);
        }
      }
    };
    checkRequirements(doc["security"], "/security");
    const paths = isObject(doc["paths"]) ? doc["paths"] : {};
    for (const path of Object.keys(paths)) {
      const item = paths[path];
      if (!isObject(item)) continue;
      for (const method of Object.keys(item)) {
        const op = item[method];
        if (!isObject(op)) continue;
        if (method !== "additionalOperations") {
          checkRequirements(op["security"], `/paths/${escapeToken(path)}/${method}/security`);
          continue;
        }
        // 3.2: operations of other methods, one level down (`additionalOperations/PURGE`).
        for (const other of Object.keys(op)) {
          const extra = op[other];
          if (isObject(extra)) checkRequirements(extra["security"], `/paths/${escapeToken(path)}/additionalOperations/${escapeToken(other)}/security`);
        }
      }
    }
  }
  return problems;
}

/** Throws an Error listing every dangling `$ref` and unknown security scheme in `doc`. */
export function checkRefIntegrity(doc: unknown): void {
  const problems = findDanglingRefs(doc);
  if (problems.length === 0) return;
  throw new Error(`keel openapi: the document has ${problems.length} dangling reference(s):\n  ${problems.join("\n  ")}`);
}
