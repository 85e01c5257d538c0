// The one RFC 9110 tchar table (§5.6.2): token = 1*tchar, tchar = "!" / "#" / "$" / "%" / "&" /
// "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA. Every token check
// in keel (header and cookie names, methods, Accept elements, WebSocket extensions, auth schemes)
// reads this table: one array lookup per character, no regex, no branches per class.

/** 1 at the char codes that are tchar, 0 elsewhere (128 entries: non-ASCII is never tchar). */
export const TCHAR: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 1;
  for (let c = 97; c <= 122; c++) t[c] = 1;
  for (const ch of "!#$%&'*+-.^_`|~") t[ch.charCodeAt(0)] = 1;
  return t;
})();

/** Is the char code `c` an RFC 9110 tchar? */
export function isTchar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

/** The index of the first non-tchar at or after `from` in `s` (`s.length` when none). */
export function tokenEnd(s: string, from: number): number {
  let p = from;
  const n = s.length;
  while (p < n) {
    const c = s.charCodeAt(p);
    if (c >= 128 || TCHAR[c] !== 1) break;
    p++;
  }
  return p;
}
