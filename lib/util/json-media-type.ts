// The one "is this JSON?" test for a media type: `application/json` and the structured-syntax
// suffix `application/*+json` (RFC 6839 §3.1), case-insensitive, parameters and surrounding
// whitespace allowed (`Application/Problem+JSON; charset=utf-8`). Used for request bodies
// (json() extractor), replies (TOON negotiation), compression, recorded bodies (replay) and the
// OTLP collector's answers. A linear scan in place: no slices, no regex.
import { TCHAR } from "./tchar.js";

const PREFIX = "application/";

/** Lowercase ASCII of the char code `c`. */
function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** Is `type` (a Content-Type value or a bare `type/subtype`) JSON? Undefined and malformed values are not. */
export function isJsonMediaType(type: string | undefined): boolean {
  if (type === undefined) return false;
  // Nearly every JSON request says exactly this (ctx.contentType.essence is lowercased): one
  // comparison instead of the scan, as before the test was shared (~150 instructions a request).
  if (type === "application/json") return true;
  let start = 0;
  let end = type.indexOf(";");
  if (end === -1) end = type.length;
  while (start < end && (type.charCodeAt(start) === 32 || type.charCodeAt(start) === 9)) start++;
  while (end > start && (type.charCodeAt(end - 1) === 32 || type.charCodeAt(end - 1) === 9)) end--;
  const sub = start + PREFIX.length;
  // Shortest: "application/json"; a suffixed subtype needs one character before "+json".
  if (end - sub < 4) return false;
  for (let i = 0; i < PREFIX.length; i++) if (lower(type.charCodeAt(start + i)) !== PREFIX.charCodeAt(i)) return false;
  const j = end - 4;
  if (lower(type.charCodeAt(j)) !== 106 /* j */ || lower(type.charCodeAt(j + 1)) !== 115 /* s */ || lower(type.charCodeAt(j + 2)) !== 111 /* o */ || lower(type.charCodeAt(j + 3)) !== 110 /* n */) return false;
  if (j === sub) return true;
  if (j - sub < 2 || type.charCodeAt(j - 1) !== 43 /* + */) return false;
  for (let i = sub; i < j - 1; i++) {
    const c = type.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}
