// A JSON string literal with JSON.stringify's exact bytes, without the native call for the
// common string that needs no escaping (error bodies are made of short, plain strings).

/** Characters JSON.stringify escapes: controls, `"`, `\`, and surrogates (lone ones become \u escapes). */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `JSON.stringify(s)` for a string, byte for byte. */
export function jsonString(s: string): string {
  const n = s.length;
  // A charCode loop beats the regex (and its native entry) on short strings.
  if (n < 42) {
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
    }
    return '"' + s + '"';
  }
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}
