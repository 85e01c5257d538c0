// Building a request from a call: the URL (path parameters percent-encoded, the query as a query
// string) and the body in the encoding its extractor reads. And reading an answer back.

/** `/users/{id}` or `/users/:id` with `params` filled in, each value percent-encoded (wildcards keep "/"). */
export function fillPath(path: string, params: Readonly<Record<string, unknown>> | undefined): string {
  const value = (name: string): string => {
    const v = params?.[name];
    if (v === undefined || v === null) throw new TypeError(`keel client: missing path parameter ${JSON.stringify(name)} for ${path}`);
    return String(v);
  };
  return path
    .replace(/\{\*([^{}]*)\}/g, (_all, name: string) => value(name === "" ? "wildcard" : name).split("/").map(encodeURIComponent).join("/"))
    .replace(/\{([^{}*]+)\}/g, (_all, name: string) => encodeURIComponent(value(name)))
    .replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_all, name: string) => encodeURIComponent(value(name)));
}

/** `?a=1&tag=x&tag=y` (arrays repeat the name; undefined is left out), or "" for nothing. */
export function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  if (query === undefined) return "";
  const search = new URLSearchParams();
  for (const [name, v] of Object.entries(query)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) search.append(name, String(item));
    else search.append(name, v === null ? "" : String(v));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

export type BodyKind = "json" | "form" | "text" | "bytes";

/** The body and its content type, in the encoding the route's body extractor reads. */
export function encodeBody(kind: BodyKind, value: unknown): { body: string | Uint8Array; contentType: string } {
  switch (kind) {
    case "form":
      return { body: queryString(value as Record<string, unknown>).slice(1), contentType: "application/x-www-form-urlencoded" };
    case "text":
      return { body: String(value), contentType: "text/plain; charset=utf-8" };
    case "bytes":
      return { body: value as Uint8Array, contentType: "application/octet-stream" };
    default:
      return { body: JSON.stringify(value), contentType: "application/json" };
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The body of an answer: nothing for 204/205/304 or an empty body, parsed JSON, else text. */
export async function decodeBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205 || response.status === 304) return undefined;
  const text = await response.text();
  if (text === "") return undefined;
  return JSON_TYPE.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : text;
}
