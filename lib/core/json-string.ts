// A JSON string literal with JSON.stringify's exact bytes, without the native call for the
// common string that needs no escaping (error bodies are made of short, plain strings).

/** `JSON.stringify(s)` for a string, byte for byte: controls, `"`, `\` and surrogates (lone ones become \u escapes) take the native call. */
export function jsonString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return '"' + s + '"';
}
