// Keeping secrets out of recordings. What a client sends is recorded by allow-list, what the
// server answers by deny-list:
// - request headers: the standard, non-credential ones (RECORDED_REQUEST_HEADERS) and the
//   configured `allowHeaders` keep their value; any other header keeps its name with the value
//   "[redacted]" (a replay does not send it). Credential headers (SECRET_HEADERS, plus
//   `redactHeaders`) are never recorded, even when allow-listed;
// - query strings: every value is "[redacted]" unless its parameter is in `allowQuery`;
// - request bodies: JSON and urlencoded forms only (anything else is a placeholder with its type
//   and size, see body-capture.ts). Form values and JSON strings are "[redacted]" unless their
//   field is in `allowFields`; JSON numbers, booleans, null and the structure are kept (ids,
//   counts and shapes make replays useful and rarely are secrets);
// - response headers and bodies (the server's own output, which the diff compares): credential
//   headers are redacted, and JSON/form fields with a secret-looking name;
// - on both sides a field with a secret-looking name (SECRET_FIELD_NAMES, any name containing
//   "password", "secret" or "token", or a configured `redactFields` name) is "[redacted]" whatever
//   its type, the whole subtree included, even when allow-listed.
// Names compare case-insensitively; secret-looking names also ignore `_` and `-` (`api_key`,
// `apiKey` and `API-KEY` are one name), so a deny-list of exact spellings cannot be side-stepped.
import type { RecordedHeaders } from "./record.js";

export const REDACTED = "[redacted]";
const REDACTED_COMPONENT = encodeURIComponent(REDACTED);

/** Headers that carry credentials: never recorded, in either direction. */
export const DEFAULT_SECRET_HEADERS: readonly string[] = [
  "authorization",
  "cookie",
  "set-cookie",
  "proxy-authorization",
  "x-api-key",
  "x-auth-token",
  "x-csrf-token",
];

/**
 * Request headers recorded with their value by default: content negotiation, conditionals,
 * framing and tracing. Not `referer` (URLs carry tokens) nor `x-forwarded-*`/`forwarded`
 * (client addresses).
 */
export const RECORDED_REQUEST_HEADERS: readonly string[] = [
  "accept",
  "accept-charset",
  "accept-encoding",
  "accept-language",
  "cache-control",
  "connection",
  "content-encoding",
  "content-language",
  "content-length",
  "content-type",
  "expect",
  "host",
  "if-match",
  "if-modified-since",
  "if-none-match",
  "if-range",
  "if-unmodified-since",
  "keep-alive",
  "origin",
  "pragma",
  "range",
  "te",
  "traceparent",
  "tracestate",
  "transfer-encoding",
  "upgrade",
  "user-agent",
  "x-request-id",
];

/** Field names (lowercase, without `_` and `-`) redacted whatever their type, on both sides. */
export const SECRET_FIELD_NAMES: readonly string[] = [
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "otp",
  "pin",
  "cvv",
  "cvc",
  "ssn",
  "cardnumber",
  "pan",
  "csrf",
  "authorization",
  "cookie",
  "sessionid",
  "privatekey",
];

/** Substrings that make a (normalized) field name secret-looking. */
const SECRET_NAME_PARTS = ["password", "secret", "token"];

/** Deeper JSON than this is not walked: the body is omitted instead of stored unredacted. */
const MAX_JSON_DEPTH = 256;

/** `API-Key` -> `apikey`. */
function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, "");
}

/** Which field names are secret: the defaults plus configured ones. */
export class SecretNames {
  private readonly names: ReadonlySet<string>;
  constructor(extra: readonly string[] = []) {
    this.names = new Set([...SECRET_FIELD_NAMES, ...extra.map(normalizeName)]);
  }
  has(name: string): boolean {
    const n = normalizeName(name);
    if (this.names.has(n)) return true;
    for (const part of SECRET_NAME_PARTS) if (n.includes(part)) return true;
    return false;
  }
}

/** The set of header names never recorded: the defaults plus `extra`, lowercased. */
export function secretHeaderSet(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...DEFAULT_SECRET_HEADERS, ...extra.map((h) => h.toLowerCase())]);
}

/** The request headers recorded with their value: the defaults plus `extra`, lowercased. */
export function recordedHeaderSet(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...RECORDED_REQUEST_HEADERS, ...extra.map((h) => h.toLowerCase())]);
}

/** A set of lowercased names (allow-lists of query parameters and fields). */
export function nameSet(names: readonly string[] = []): ReadonlySet<string> {
  return new Set(names.map((f) => f.toLowerCase()));
}

type HeaderSource = Readonly<Record<string, string | number | readonly string[] | undefined>>;

/**
 * Copy headers into a null-prototype map (lowercase names, string values). Names in `secrets`
 * are redacted; with `allowed`, so is every name not in it (the request side).
 */
export function recordHeaders(headers: HeaderSource, secrets: ReadonlySet<string>, allowed: ReadonlySet<string> | null = null): RecordedHeaders {
  const out: RecordedHeaders = Object.create(null) as RecordedHeaders;
  for (const rawName in headers) {
    const value = headers[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (secrets.has(name) || (allowed !== null && !allowed.has(name))) out[name] = Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
    else out[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

/** Thrown when a JSON value is nested too deeply to walk. */
export class TooDeepError extends Error {}

/** What to keep of a JSON or form body: `allowed` null keeps every non-secret value (the response side). */
export interface FieldPolicy {
  readonly allowed: ReadonlySet<string> | null;
  readonly secrets: SecretNames;
}

/**
 * A copy of a parsed JSON value: secret-named properties "[redacted]" whatever they hold; with an
 * allow-list, every string not under an allowed name too (array items take their array's name).
 */
export function redactJson(value: unknown, policy: FieldPolicy, key: string | null = null, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) throw new TooDeepError("JSON nested too deeply to redact");
  if (typeof value === "string") return policy.allowed === null || (key !== null && policy.allowed.has(key.toLowerCase())) ? value : REDACTED;
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, policy, key, depth + 1));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    out[k] = policy.secrets.has(k) ? REDACTED : redactJson(v, policy, k, depth + 1);
  }
  return out;
}

/**
 * `a=1&b=2` pairs (a form body or a query string) with the value of every pair that is secret,
 * or not allowed, replaced. Pairs keep their order and their original encoding; a pair without
 * "=" or with an empty value has nothing to hide and stays.
 */
export function redactPairs(text: string, policy: FieldPolicy): string {
  if (text === "") return text;
  const pairs = text.split("&");
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf("=");
    if (eq === -1 || eq === pair.length - 1) continue;
    const rawName = pair.slice(0, eq);
    const name = decodeFormComponent(rawName);
    if (policy.secrets.has(name) || (policy.allowed !== null && !policy.allowed.has(name.toLowerCase()))) pairs[i] = rawName + "=" + REDACTED_COMPONENT;
  }
  return pairs.join("&");
}

/** Decode one form component leniently (a malformed escape keeps its raw text). */
function decodeFormComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
