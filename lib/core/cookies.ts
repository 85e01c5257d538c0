// Cookie header parsing (RFC 6265 section 5.4, leniently): `a=1; b=2` into a null-prototype map.
// The first occurrence of a name wins, as browsers send the most specific cookie first.

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (header === undefined || header === "") return out;
  let start = 0;
  const len = header.length;
  let count = 0;
  while (start < len && count < 200) {
    let end = header.indexOf(";", start);
    if (end === -1) end = len;
    const eq = header.indexOf("=", start);
    if (eq !== -1 && eq < end) {
      const name = header.slice(start, eq).trim();
      if (name !== "" && out[name] === undefined) {
        let value = header.slice(eq + 1, end).trim();
        if (value.length >= 2 && value.charCodeAt(0) === 34 && value.charCodeAt(value.length - 1) === 34) {
          value = value.slice(1, -1);
        }
        if (value.indexOf("%") !== -1) {
          try {
            value = decodeURIComponent(value);
          } catch {
            // keep the raw value
          }
        }
        out[name] = value;
        count++;
      }
    }
    start = end + 1;
  }
  return out;
}
