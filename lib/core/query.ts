// Query strings and urlencoded forms parse into null-prototype maps; a repeated key becomes an array.
// Keys that would pollute prototypes elsewhere (`__proto__`, `constructor`, `prototype`) are kept
// as plain data here: the map has no prototype, so they are inert.

export type ParamMap = Record<string, string | string[]>;

const MAX_PAIRS = 1000;

/** Marks a malformed escape in strict mode. */
const MALFORMED = "\u0000keel:malformed";

function decodeComponent(s: string, strict: boolean): string {
  if (s.indexOf("+") !== -1) s = s.replace(/\+/g, " ");
  if (s.indexOf("%") === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    // Lenient (query strings): keep malformed escapes verbatim, as URLSearchParams does.
    return strict ? MALFORMED : s;
  }
}

/**
 * Parse `a=1&b=2&a=3` (no leading `?`). At most 1000 pairs are read; the rest is ignored.
 * `strict` (form bodies, whose text was checked as UTF-8 like JSON and text bodies): a malformed
 * escape or one that decodes to invalid UTF-8 makes the result null instead of literal text.
 */
export function parseQueryString(qs: string): ParamMap;
export function parseQueryString(qs: string, strict: true): ParamMap | null;
export function parseQueryString(qs: string, strict = false): ParamMap | null {
  const out: ParamMap = Object.create(null);
  if (qs === "") return out;
  let start = 0;
  let pairs = 0;
  const len = qs.length;
  while (start <= len && pairs < MAX_PAIRS) {
    let end = qs.indexOf("&", start);
    if (end === -1) end = len;
    if (end > start) {
      pairs++;
      const eq = qs.indexOf("=", start);
      let key: string;
      let value: string;
      if (eq === -1 || eq > end) {
        key = decodeComponent(qs.slice(start, end), strict);
        value = "";
      } else {
        key = decodeComponent(qs.slice(start, eq), strict);
        value = decodeComponent(qs.slice(eq + 1, end), strict);
      }
      if (strict && (key === MALFORMED || value === MALFORMED)) return null;
      const prev = out[key];
      if (prev === undefined) out[key] = value;
      else if (typeof prev === "string") out[key] = [prev, value];
      else prev.push(value);
    }
    start = end + 1;
  }
  return out;
}
