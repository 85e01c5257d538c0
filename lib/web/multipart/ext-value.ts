// RFC 8187 (was RFC 5987) extended parameter values, as in `filename*=UTF-8''na%C3%AFve.txt`:
// charset ' language ' percent-encoded bytes. UTF-8 and ISO-8859-1 are the two charsets the
// RFC requires; anything else, or a bad escape, is malformed.
import { isUtf8 } from "node:buffer";

const ATTR_CHAR = /^[0-9A-Za-z!#$&+.^_`|~-]$/;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

/** The decoded text, or null when `raw` is not a valid extended value. */
export function decodeExtValue(raw: string): string | null {
  const q1 = raw.indexOf("'");
  const q2 = q1 === -1 ? -1 : raw.indexOf("'", q1 + 1);
  if (q2 === -1) return null;
  const charset = raw.slice(0, q1).toLowerCase();
  if (charset !== "utf-8" && charset !== "iso-8859-1") return null;
  const encoded = raw.slice(q2 + 1);
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded[i]!;
    if (c === "%") {
      const hi = hexValue(encoded.charCodeAt(i + 1));
      const lo = hexValue(encoded.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) return null;
      bytes.push(hi * 16 + lo);
      i += 2;
    } else if (ATTR_CHAR.test(c)) {
      bytes.push(c.charCodeAt(0));
    } else {
      return null;
    }
  }
  const buf = Buffer.from(bytes);
  if (charset === "iso-8859-1") return buf.toString("latin1");
  return isUtf8(buf) ? buf.toString("utf8") : null;
}
