// What an expectation of mockServer() matches: method, path (exact, `{name}` pattern or RegExp),
// query, headers, body (exact JSON, a partial object, text, bytes or a predicate).
import { isDeepStrictEqual } from "node:util";
import type { ReceivedRequest } from "./received.js";

/** A value test: the exact string, a RegExp, or a predicate. */
export type ValueMatcher = string | RegExp | ((value: string) => boolean);

/** The body of a request: exact JSON, a partial JSON object, exact text or bytes, or a predicate. */
export type BodyMatcher =
  | { json: unknown }
  | { partial: Readonly<Record<string, unknown>> | readonly unknown[] }
  | string
  | Uint8Array
  | ((request: ReceivedRequest) => boolean);

export interface RequestMatcher {
  /** The method, any case (default: any method). */
  method?: string;
  /**
   * The path without the query: exact (`/v1/traces`), a pattern whose `{name}` stands for one
   * segment (`/users/{id}`) and whose trailing `*` for the rest (`/static/*`), or a RegExp.
   */
  path?: string | RegExp;
  /** Query parameters the request must have (others may be there too). */
  query?: Readonly<Record<string, ValueMatcher>>;
  /** Headers the request must have (names in any case; others may be there too). */
  headers?: Readonly<Record<string, ValueMatcher>>;
  body?: BodyMatcher;
}

/** A matcher compiled once, when the expectation is declared. */
export interface CompiledMatcher {
  readonly description: string;
  matches(request: ReceivedRequest): boolean;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function compilePath(path: string | RegExp): (p: string) => boolean {
  if (path instanceof RegExp) return (p) => path.test(p);
  if (!path.startsWith("/")) throw new TypeError(`mockServer: a path must start with "/", got ${JSON.stringify(path)}`);
  if (!path.includes("{") && !path.endsWith("*")) return (p) => p === path;
  const rest = path.endsWith("*");
  const body = rest ? path.slice(0, -1) : path;
  const source = body.split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/).map((part) => (/^\{.*\}$/.test(part) ? "[^/]+" : escapeRegExp(part))).join("");
  const re = new RegExp(`^${source}${rest ? ".*" : ""}$`);
  return (p) => re.test(p);
}

function valueMatches(m: ValueMatcher, value: string | undefined): boolean {
  if (value === undefined) return false;
  if (typeof m === "string") return m === value;
  if (m instanceof RegExp) return m.test(value);
  return m(value) === true;
}

/** `actual` holds everything `expected` lists: objects by key, arrays element by element (same length). */
export function partialMatch(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => partialMatch(e, actual[i]));
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    const a = actual as Record<string, unknown>;
    return Object.keys(expected).every((k) => Object.hasOwn(a, k) && partialMatch((expected as Record<string, unknown>)[k], a[k]));
  }
  return Object.is(expected, actual);
}

function compileBody(m: BodyMatcher): [(r: ReceivedRequest) => boolean, string] {
  if (typeof m === "function") return [(r) => m(r) === true, "body matching a predicate"];
  if (typeof m === "string") return [(r) => r.text === m, `body ${JSON.stringify(m.length > 60 ? m.slice(0, 60) + "..." : m)}`];
  if (m instanceof Uint8Array) return [(r) => Buffer.compare(r.body, m) === 0, `body of ${m.byteLength} exact bytes`];
  if ("json" in m) {
    const want = m.json;
    return [(r) => r.json !== undefined && isDeepStrictEqual(r.json, want), `JSON body ${JSON.stringify(want)?.slice(0, 80)}`];
  }
  const want = m.partial;
  return [(r) => r.json !== undefined && partialMatch(want, r.json), `JSON body containing ${JSON.stringify(want)?.slice(0, 80)}`];
}

function describeValue(m: ValueMatcher): string {
  return typeof m === "string" ? JSON.stringify(m) : m instanceof RegExp ? String(m) : "(predicate)";
}

export function compileMatcher(m: RequestMatcher): CompiledMatcher {
  const method = m.method?.toUpperCase();
  const path = m.path === undefined ? null : compilePath(m.path);
  const query = m.query === undefined ? [] : Object.entries(m.query);
  const headers = m.headers === undefined ? [] : Object.entries(m.headers).map(([k, v]) => [k.toLowerCase(), v] as const);
  const [body, bodyText] = m.body === undefined ? [null, ""] : compileBody(m.body);
  const parts = [method ?? "*", m.path === undefined ? "*" : String(m.path)];
  if (query.length > 0) parts.push(`query ${query.map(([k, v]) => `${k}=${describeValue(v)}`).join("&")}`);
  if (headers.length > 0) parts.push(`headers ${headers.map(([k, v]) => `${k}: ${describeValue(v)}`).join(", ")}`);
  if (body !== null) parts.push(bodyText);
  return {
    description: parts.join(" "),
    matches(r) {
      if (method !== undefined && r.method !== method) return false;
      if (path !== null && !path(r.path)) return false;
      for (const [k, v] of query) {
        const got = r.query[k];
        if (!valueMatches(v, typeof got === "string" ? got : got?.[0])) return false;
      }
      for (const [k, v] of headers) {
        const got = r.headers[k];
        if (!valueMatches(v, Array.isArray(got) ? got.join(", ") : got)) return false;
      }
      return body === null || body(r);
    },
  };
}
