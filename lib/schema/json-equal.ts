// JSON value equality for const/enum, and a canonical key for linear-time uniqueItems.
// Both are iterative-depth-bounded by the caller's try/catch (see compile.ts): hostile nesting
// that overflows the stack becomes a validation error, not a crash.

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** A string equal for equal JSON values (object keys sorted; 1 and 1.0 are the same number). */
export function canonicalKey(v: unknown): string {
  if (typeof v !== "object" || v === null) return typeof v === "string" ? JSON.stringify(v) : String(v);
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) out += (i > 0 ? "," : "") + canonicalKey(v[i]);
    return out + "]";
  }
  const keys = Object.keys(v).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += (i > 0 ? "," : "") + JSON.stringify(k) + ":" + canonicalKey((v as Record<string, unknown>)[k]);
  }
  return out + "}";
}
