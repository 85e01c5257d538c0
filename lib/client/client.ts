// client<typeof routes>(baseUrl): calls checked against the app's route table at compile time
// (method, path, parameters, query, headers, body) and answers typed by the declared responses.
// At run time it is a thin layer over fetch: it needs no route table, so a browser bundle of a
// client carries none of the server.
import type { BodyKind } from "./request.js";
import { decodeBody, encodeBody, fillPath, queryString } from "./request.js";
import type { ClientInput, InputArgs, PathsFor, ResponseOf, RouteFor, RouteTable } from "./types.js";

export interface ClientOptions {
  /** The fetch to use (default: the global one). Wrap it to add retries, logging or cookies. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers sent with every call (an `authorization` for example), or a function giving them per call. */
  headers?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>);
}

type Call<T extends RouteTable, M extends string> = <P extends PathsFor<T, M>>(
  path: P,
  ...input: InputArgs<ClientInput<RouteFor<T, M, P>>>
) => Promise<ResponseOf<RouteFor<T, M, P>>>;

/** One method per HTTP verb; each takes only the paths declared for it. */
export interface Client<T extends RouteTable> {
  get: Call<T, "GET">;
  post: Call<T, "POST">;
  put: Call<T, "PUT">;
  patch: Call<T, "PATCH">;
  delete: Call<T, "DELETE">;
  head: Call<T, "HEAD">;
  options: Call<T, "OPTIONS">;
}

const BODY_KINDS: readonly BodyKind[] = ["json", "form", "text", "bytes"];

interface RawInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  json?: unknown;
  form?: unknown;
  text?: unknown;
  bytes?: unknown;
}

/**
 * A client for the routes of type `T` (`typeof routes`, or `SampleRoutes`) served at `baseUrl`.
 * `await api.get("/users/{id}", { params: { id: 1 } })` resolves to `{ ok, status, body, headers,
 * response }`; a network failure rejects.
 *
 * @example
 * const api = client<typeof routes>("http://127.0.0.1:8080");   // routes: a tuple `as const`
 * const r = await api.get("/users/{id}", { params: { id: 1 } });
 * if (r.ok) console.log(r.body.email);
 *
 * @see docs/features/client.md
 */
export function client<T extends RouteTable>(baseUrl: string, options: ClientOptions = {}): Client<T> {
  const base = baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const call = (method: string) => async (path: string, input: RawInput = {}) => {
    const headers: Record<string, string> = {};
    const common = typeof options.headers === "function" ? options.headers() : options.headers;
    for (const [k, v] of Object.entries(common ?? {})) headers[k.toLowerCase()] = v;
    for (const [k, v] of Object.entries(input.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = String(v);
    const init: RequestInit = { method, headers };
    for (const kind of BODY_KINDS) {
      if (input[kind] === undefined) continue;
      const { body, contentType } = encodeBody(kind, input[kind]);
      init.body = body;
      headers["content-type"] ??= contentType;
      break;
    }
    if (input.signal !== undefined) init.signal = input.signal;
    const response = await doFetch(base + fillPath(path, input.params) + queryString(input.query), init);
    const body = await decodeBody(response);
    return { ok: response.status < 400, status: response.status, body, headers: response.headers, response };
  };
  return {
    get: call("GET"),
    post: call("POST"),
    put: call("PUT"),
    patch: call("PATCH"),
    delete: call("DELETE"),
    head: call("HEAD"),
    options: call("OPTIONS"),
  } as unknown as Client<T>;
}
