// operationIds: the declared one, or one derived from method and path (`GET /users/{id}` ->
// `getUsersById`), made unique with a numeric suffix. Depends only on the route list, so it is
// the same on every run.

function capitalize(word: string): string {
  return word.length === 0 ? word : word[0]!.toUpperCase() + word.slice(1);
}

/** Words of one path segment: `echo-text` -> ["Echo", "Text"], `{user_id}` -> ["By", "User", "Id"]. */
function segmentWords(segment: string): string[] {
  const param = /^\{\*?([^{}]*)\}$/.exec(segment);
  const raw = param === null ? segment : param[1] === "" || param[1] === "*" ? "wildcard" : (param[1] ?? "");
  const words = raw.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0).map(capitalize);
  return param === null ? words : ["By", ...words];
}

/** `getUsersById`-style id from a method and a canonical pattern; `/` is `Root`. */
export function deriveOperationId(method: string, pattern: string): string {
  const words = pattern.split("/").flatMap(segmentWords);
  const verb = method.toLowerCase().replace(/[^a-z0-9]/g, "");
  return verb + (words.length === 0 ? "Root" : words.join(""));
}

/**
 * Assigns one unique id per route. Declared ids are reserved first, so a derived id never takes a
 * declared one; later clashes get `_2`, `_3`...
 */
export function assignOperationIds(routes: readonly { method: string; pattern: string; declared: string | undefined }[]): string[] {
  const used = new Set<string>();
  const ids: string[] = new Array<string>(routes.length);
  const take = (base: string): string => {
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    return id;
  };
  routes.forEach((r, i) => {
    if (r.declared !== undefined && r.declared !== "") ids[i] = take(r.declared);
  });
  routes.forEach((r, i) => {
    if (ids[i] === undefined) ids[i] = take(deriveOperationId(r.method, r.pattern));
  });
  return ids;
}
