// Content-Type is parsed once per request and shared by every consumer (body extractors,
// validators, layers), so no two parts of keel can disagree about what a request carries
// (the Fastify CVE-2025-32442 class). Parsing is a linear scan, no regex.
import { tokenEnd } from "../util/tchar.js";

export interface MediaType {
  /** Lowercased `type/subtype`, whitespace trimmed; "" when the header is absent or malformed. */
  readonly essence: string;
  /** Lowercased charset parameter, or undefined. */
  readonly charset: string | undefined;
}

const ABSENT: MediaType = Object.freeze({ essence: "", charset: undefined });

/** The last header parsed and its (frozen) result: clients send the same one request after request. */
let lastHeader = "";
let lastType: MediaType = ABSENT;

export function parseMediaType(header: string | undefined): MediaType {
  if (header === undefined || header === "") return ABSENT;
  if (header === lastHeader) return lastType;
  const parsed = parseUncached(header);
  lastHeader = header;
  lastType = parsed;
  return parsed;
}

function parseUncached(header: string): MediaType {
  const semi = header.indexOf(";");
  const essence = (semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase();
  const slash = essence.indexOf("/");
  if (slash <= 0 || slash === essence.length - 1) return ABSENT;
  if (tokenEnd(essence, 0) !== slash || tokenEnd(essence, slash + 1) !== essence.length) return ABSENT;
  let charset: string | undefined;
  if (semi !== -1) {
    for (const part of header.slice(semi + 1).split(";")) {
      const eq = part.indexOf("=");
      if (eq === -1) continue;
      if (part.slice(0, eq).trim().toLowerCase() !== "charset") continue;
      let v = part.slice(eq + 1).trim();
      if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
      charset = v.toLowerCase();
    }
  }
  return Object.freeze({ essence, charset });
}
