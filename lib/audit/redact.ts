// What an audit record may carry of the caller's metadata. Records outlive the request and are
// read by more people than the service's secrets should be, so values under keys that name
// credentials (authorization, cookie, password, token, secret, api key, ...) are replaced by
// "[redacted]" at any depth, and the copy is plain JSON data with a bounded depth.
// Automatic events never carry headers or bodies at all; this guards what handlers pass.

export const REDACTED = "[redacted]";
const MAX_DEPTH = 8;

/** Lowercase keys (with "-" and "_" removed) whose values are never recorded. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  "authorization",
  "proxyauthorization",
  "cookie",
  "setcookie",
  "password",
  "passwd",
  "pass",
  "secret",
  "clientsecret",
  "token",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "apikey",
  "xapikey",
  "privatekey",
  "credentials",
  "body",
  "rawbody",
]);

function normalizeKey(key: string): string {
  let out = "";
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 45 || c === 95) continue; // "-" and "_"
    out += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : key[i];
  }
  return out;
}

/** A redactor for the built-in names plus `extra` (compared the same way: case, "-" and "_" ignored). */
export function metadataRedactor(extra: readonly string[] = []): (metadata: Readonly<Record<string, unknown>>) => Record<string, unknown> {
  const names = new Set(SECRET_KEYS);
  for (const name of extra) names.add(normalizeKey(name));
  const copy = (value: unknown, depth: number): unknown => {
    if (value === null || typeof value === "string" || typeof value === "boolean") return value;
    if (typeof value === "number") return Number.isFinite(value) ? value : null;
    if (typeof value === "bigint") return value.toString();
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (typeof value !== "object") return null; // functions, symbols, undefined
    if (depth >= MAX_DEPTH) return "[too deep]";
    if (Array.isArray(value)) return value.map((item) => copy(item, depth + 1));
    const out = Object.create(null) as Record<string, unknown>; // "__proto__" stays a key
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v === undefined) continue;
      out[key] = names.has(normalizeKey(key)) ? REDACTED : copy(v, depth + 1);
    }
    return out;
  };
  return (metadata) => copy(metadata, 0) as Record<string, unknown>;
}
