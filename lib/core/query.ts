// Query strings and urlencoded forms parse into null-prototype maps; a repeated key becomes an array.
// Keys that would pollute prototypes elsewhere (`__proto__`, `constructor`, `prototype`) are kept
// as plain data here: the map has no prototype, so they are inert.

export type ParamMap = Record<string, string | string[]>;

const MAX_PAIRS = 1000;

function decodeComponent(s: string): string {
  if (s.indexOf("+") !== -1) s = s.replace(/\+/g, " ");
  if (s.indexOf("%") === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // keep malformed escapes verbatim, as URLSearchParams does
  }
}

/** Parse `a=1&b=2&a=3` (no leading `?`). At most 1000 pairs are read; the rest is ignored. */
export function parseQueryString(qs: string): ParamMap {
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
        key = decodeComponent(qs.slice(start, end));
        value = "";
      } else {
        key = decodeComponent(qs.slice(start, eq));
        value = decodeComponent(qs.slice(eq + 1, end));
      }
      const prev = out[key];
      if (prev === undefined) out[key] = value;
      else if (typeof prev === "string") out[key] = [prev, value];
      else prev.push(value);
    }
    start = end + 1;
  }
  return out;
}
