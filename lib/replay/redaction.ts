// Keeping secrets out of recordings. RustAPI redacts four request headers and top-level JSON keys
// only (reference/rustapi.md "Replay recording"): a session cookie set by the response, or a
// password one level down (`{"user":{"password":...}}`), ends up on disk. Here:
// - headers: authorization, cookie, set-cookie (response), proxy-authorization, x-api-key,
//   x-auth-token, x-csrf-token and any configured name are replaced by "[redacted]";
// - JSON bodies: configured field names are redacted at any depth, inside arrays too;
// - urlencoded form bodies: the same field names.
// Field names compare case-insensitively: `Password` is as secret as `password`.
import type { RecordedHeaders } from "./record.js";

export const REDACTED = "[redacted]";

export const DEFAULT_SECRET_HEADERS: readonly string[] = [
  "authorization",
  "cookie",
  "set-cookie",
  "proxy-authorization",
  "x-api-key",
  "x-auth-token",
  "x-csrf-token",
];

/** Deeper JSON than this is not walked: the body is omitted instead of stored unredacted. */
const MAX_JSON_DEPTH = 256;

/** The set of header names to redact: the defaults plus `extra`, lowercased. */
export function secretHeaderSet(extra: readonly string[] = []): ReadonlySet<string> {
  return new Set([...DEFAULT_SECRET_HEADERS, ...extra.map((h) => h.toLowerCase())]);
}

/** The set of body field names to redact, lowercased. */
export function secretFieldSet(fields: readonly string[] = []): ReadonlySet<string> {
  return new Set(fields.map((f) => f.toLowerCase()));
}

type HeaderSource = Readonly<Record<string, string | number | readonly string[] | undefined>>;

/** Copy headers into a null-prototype map (lowercase names, string values), secrets redacted. */
export function recordHeaders(headers: HeaderSource, secrets: ReadonlySet<string>): RecordedHeaders {
  const out: RecordedHeaders = Object.create(null) as RecordedHeaders;
  for (const rawName in headers) {
    const value = headers[rawName];
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (secrets.has(name)) out[name] = Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
    else out[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

/** Thrown when a JSON value is nested too deeply to walk. */
export class TooDeepError extends Error {}

/** A copy of a parsed JSON value with every property named in `fields` replaced by "[redacted]". */
export function redactJson(value: unknown, fields: ReadonlySet<string>, depth = 0): unknown {
  if (depth > MAX_JSON_DEPTH) throw new TooDeepError("JSON nested too deeply to redact");
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactJson(v, fields, depth + 1));
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    out[key] = fields.has(key.toLowerCase()) ? REDACTED : redactJson(v, fields, depth + 1);
  }
  return out;
}

/**
 * An urlencoded form with the values of secret fields replaced. Pairs keep their order and
 * their original encoding; only the value of a redacted pair is rewritten.
 */
export function redactForm(text: string, fields: ReadonlySet<string>): string {
  if (fields.size === 0 || text === "") return text;
  const pairs = text.split("&");
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf("=");
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    if (fields.has(decodeFormComponent(rawName).toLowerCase())) pairs[i] = rawName + "=" + encodeURIComponent(REDACTED);
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
