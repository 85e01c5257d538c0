// Secrets never reach the log: header values under these names (in any object, at any depth,
// case-insensitive) are replaced by "[Redacted]" wherever headers are logged.

export const REDACTED = "[Redacted]";

/** Header names whose values are secrets (lowercase). */
export const SECRET_HEADERS: readonly string[] = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-auth-token",
  "x-csrf-token",
];

/** A lowercase-name set for the given names (defaults to SECRET_HEADERS). */
export function secretNameSet(names: readonly string[] = SECRET_HEADERS): ReadonlySet<string> {
  return new Set(names.map((n) => n.toLowerCase()));
}

const DEFAULT_SECRETS = secretNameSet();

/**
 * A copy of a header map with secret values redacted (null-prototype; arrays copied).
 * `allow`, when given, keeps only those (lowercase) names.
 */
export function redactHeaders(
  headers: Readonly<Record<string, unknown>>,
  secrets: ReadonlySet<string> = DEFAULT_SECRETS,
  allow?: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const name in headers) {
    const key = name.toLowerCase();
    if (allow !== undefined && !allow.has(key)) continue;
    const v = headers[name];
    if (v === undefined) continue;
    out[key] = secrets.has(key) ? REDACTED : Array.isArray(v) ? v.slice() : v;
  }
  return out;
}

/**
 * A JSON.stringify replacer that redacts secret-named keys at any depth and turns Error objects
 * into `{ type, message, stack }` (pino's `err` shape) instead of `{}`.
 */
export function redactingReplacer(secrets: ReadonlySet<string> = DEFAULT_SECRETS): (key: string, value: unknown) => unknown {
  return function replace(key, value) {
    if (key !== "" && secrets.has(key.toLowerCase()) && value !== undefined) return REDACTED;
    if (value instanceof Error) {
      const e = value as Error & { code?: unknown };
      return { type: e.name, message: e.message, stack: e.stack, ...(e.code === undefined ? {} : { code: e.code }) };
    }
    if (typeof value === "bigint") return value.toString();
    return value;
  };
}
