// A JSON string literal with JSON.stringify's exact bytes, without the native call for the common
// string that needs no escaping: the response serializer (lib/schema/serializer.ts) and the
// uniform error body (lib/core/errors.ts) are made mostly of short, plain strings.

/** Characters JSON must escape (and lone surrogates, which JSON.stringify writes as \u escapes). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `JSON.stringify(s)` for a string, byte for byte; a loop for short strings, one regex test for long ones. */
export function jsonString(s: string): string {
  const n = s.length;
  if (n < 42) {
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
    }
    return '"' + s + '"';
  }
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}
