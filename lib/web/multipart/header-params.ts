// `; name=value` parameter lists as found in Content-Type and Content-Disposition. Values are
// tokens or quoted strings. Inside quotes a backslash is kept as it is: browsers (WHATWG
// multipart encoding) and curl percent-encode `"` in file names and send `C:\dir\f.txt` verbatim,
// so reading `\` as an escape would corrupt those names.

import { isHttpToken } from "../../plugin.js";

/** Parameters by lowercased name (null-prototype), or null when the list is malformed or repeats a name. */
export function parseHeaderParams(text: string, from: number): Record<string, string> | null {
  const out: Record<string, string> = Object.create(null);
  const len = text.length;
  let i = from;
  for (;;) {
    while (i < len && (text[i] === " " || text[i] === "\t")) i++;
    if (i >= len) return out;
    if (text[i] !== ";") return null;
    i++;
    while (i < len && (text[i] === " " || text[i] === "\t")) i++;
    if (i >= len) return out; // a trailing ";" is tolerated
    const eq = text.indexOf("=", i);
    if (eq === -1) return null;
    const name = text.slice(i, eq).trim().toLowerCase();
    if (!isHttpToken(name) || name in out) return null;
    i = eq + 1;
    while (i < len && (text[i] === " " || text[i] === "\t")) i++;
    let value: string;
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close === -1) return null;
      value = text.slice(i + 1, close);
      i = close + 1;
    } else {
      let end = text.indexOf(";", i);
      if (end === -1) end = len;
      value = text.slice(i, end).trim();
      if (!isHttpToken(value, len)) return null;
      i = end;
    }
    out[name] = value;
  }
}
