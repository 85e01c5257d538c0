// The "key1=value1,key2=value2" lists of OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES
// (the W3C Baggage syntax without properties): entries trimmed, keys and values percent-decoded.
// Parsed into a null-prototype map, so a key like "__proto__" is just a key.

/** Parse a list; `describe` names the variable in errors. Throws TypeError on a malformed entry. */
export function parseKeyValueList(text: string, describe: string): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq <= 0) throw new TypeError(`${describe}: "${entry}" is not key=value`);
    const key = decode(entry.substring(0, eq).trim(), describe);
    const value = decode(entry.substring(eq + 1).trim(), describe);
    if (key === "") throw new TypeError(`${describe}: an entry has an empty key`);
    out[key] = value;
  }
  return out;
}

function decode(part: string, describe: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new TypeError(`${describe}: "${part}" is not valid percent-encoding`);
  }
}
