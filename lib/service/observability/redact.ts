// Secrets never reach the log: header values under these names (in any object, at any depth,
// case-insensitive) are replaced by "[Redacted]" wherever headers are logged. The logger's
// replacer (lib/util/logger.ts) does the redacting inside log lines; this file names the secrets.
import { REDACTED } from "../../plugin.js";

export { REDACTED };

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
