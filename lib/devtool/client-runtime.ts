// The run-time part of a file `keel client` writes: a few lines over fetch, the same request and
// answer shapes as keel/client (`{ params, query, headers, json | form | text | bytes | multipart,
// signal }` in, `{ ok, status, body, headers, response }` out), so code moves between the two.
// Held as text: it is copied into the generated file, which then needs nothing but fetch.
export const CLIENT_RUNTIME = `export interface ClientOptions {
  /** The fetch to use (default: the global one). Wrap it to add retries, logging or cookies. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers sent with every call, or a function giving them per call. */
  headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
}

/** One declared answer: \`ok\` is true for 1xx-3xx. */
export interface Answer<S extends number, B, Ok extends boolean> {
  readonly ok: Ok;
  readonly status: S;
  readonly body: B;
  readonly headers: Headers;
  readonly response: Response;
}

type IsOk<S extends number> = \`\${S}\` extends \`1\${string}\` | \`2\${string}\` | \`3\${string}\` ? true : false;

/** What a call resolves to: one member per declared status, and one for any other error status. */
export type Result<R> =
  | { [S in keyof R]: S extends number ? Answer<S, R[S], IsOk<S>> : never }[keyof R]
  | Answer<number, unknown, false>;

interface CallInput {
  params?: Readonly<Record<string, unknown>>;
  query?: Readonly<Record<string, unknown>>;
  headers?: Readonly<Record<string, string | undefined>>;
  json?: unknown;
  form?: Readonly<Record<string, unknown>>;
  text?: string;
  bytes?: Uint8Array;
  multipart?: FormData;
  signal?: AbortSignal;
}

function fillPath(path: string, params: Readonly<Record<string, unknown>> | undefined): string {
  return path.replace(/\\{(\\*?)([^{}]*)\\}/g, (_all: string, star: string, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new TypeError("missing path parameter " + name + " for " + path);
    const text = String(value);
    return star === "*" ? text.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(text);
  });
}

function queryString(query: Readonly<Record<string, unknown>> | undefined): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(name, String(item));
    else search.append(name, value === null ? "" : String(value));
  }
  const text = search.toString();
  return text === "" ? "" : "?" + text;
}

function encodeBody(input: CallInput, headers: Record<string, string>): string | Uint8Array | FormData | undefined {
  if (input.json !== undefined) {
    headers["content-type"] ??= "application/json";
    return JSON.stringify(input.json);
  }
  if (input.form !== undefined) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    return queryString(input.form).slice(1);
  }
  if (input.text !== undefined) {
    headers["content-type"] ??= "text/plain; charset=utf-8";
    return input.text;
  }
  if (input.bytes !== undefined) {
    headers["content-type"] ??= "application/octet-stream";
    return input.bytes;
  }
  // FormData sets its own multipart boundary.
  return input.multipart;
}

async function decodeBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205 || response.status === 304) return undefined;
  const text = await response.text();
  if (text === "") return undefined;
  return /^application\\/(?:[\\w.+-]+\\+)?json\\s*(?:;|$)/i.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : text;
}

function caller(baseUrl: string, options: ClientOptions) {
  const base = baseUrl.replace(/\\/+$/, "");
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  return async (method: string, path: string, input: CallInput): Promise<Answer<number, unknown, boolean>> => {
    const headers: Record<string, string> = {};
    const common = typeof options.headers === "function" ? options.headers() : options.headers;
    for (const [k, v] of Object.entries(common ?? {})) headers[k.toLowerCase()] = v;
    for (const [k, v] of Object.entries(input.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
    const init: RequestInit = { method, headers };
    const body = encodeBody(input, headers);
    if (body !== undefined) init.body = body;
    if (input.signal !== undefined) init.signal = input.signal;
    const response = await doFetch(base + fillPath(path, input.params) + queryString(input.query), init);
    return { ok: response.status < 400, status: response.status, body: await decodeBody(response), headers: response.headers, response };
  };
}
`;
