// The JSON-or-TOON choice made for negotiated replies, from the request's Accept header. The header
// is parsed by the one Accept parser (`keel/plugin`: rankMediaTypes, lib/util/accept.ts), whose rules
// apply here: invalid elements are ignored, the most specific range decides, q=0 refuses, a
// charset other than UTF-8 matches nothing, no valid range at all means `*/*`.
import { MAX_ACCEPT_ELEMENTS, rankMediaTypes } from "../plugin.js";

export { acceptQuality, parseAccept, selectMediaType, type AcceptRange } from "../plugin.js";
/** Ranges looked at per Accept header (the kernel's MAX_ACCEPT_ELEMENTS, under its earlier name). */
export const MAX_ACCEPT_RANGES = MAX_ACCEPT_ELEMENTS;

export const JSON_MEDIA_TYPE = "application/json";
export const TOON_MEDIA_TYPE = "application/toon";
/** The provisional media type of the TOON spec; accepted as an alias of application/toon. */
export const TOON_TEXT_MEDIA_TYPE = "text/toon";
/** Media types a TOON body or reply may carry, the primary one first. */
export const TOON_MEDIA_TYPES: readonly string[] = Object.freeze([TOON_MEDIA_TYPE, TOON_TEXT_MEDIA_TYPE]);

export type ResponseFormat = "json" | "toon";

export interface FormatChoice {
  readonly format: ResponseFormat;
  /** The media type to answer with: application/json, application/toon or text/toon. */
  readonly mediaType: string;
}

const JSON_CHOICE: FormatChoice = Object.freeze({ format: "json", mediaType: JSON_MEDIA_TYPE });
const TOON_CHOICE: FormatChoice = Object.freeze({ format: "toon", mediaType: TOON_MEDIA_TYPE });
const TOON_TEXT_CHOICE: FormatChoice = Object.freeze({ format: "toon", mediaType: TOON_TEXT_MEDIA_TYPE });

// Candidates of negotiateFormat: application/json, application/toon, text/toon. Scratch space is
// module-level: negotiation is synchronous, so calls cannot interleave.
const FORMAT_TYPES = ["application", "application", "text"] as const;
const FORMAT_SUBTYPES = ["json", "toon", "toon"] as const;
const formatQ = new Int16Array(3);
const formatSpec = new Int8Array(3);

/**
 * JSON or TOON for an Accept header; null when the client accepts neither.
 * - TOON is chosen when the client ranks it above JSON, or equally high while naming it
 *   explicitly (`application/toon` or `text/toon`, not only through a wildcard).
 *   `Accept: application/toon, application/json` is TOON; `*\/*` and `application/*` are JSON.
 * - The TOON media type is whichever of application/toon and text/toon the client ranks higher
 *   (application/toon on a tie), so `Accept: text/toon` is answered as text/toon.
 * - No Accept header (or no usable range in it) is JSON.
 */
export function negotiateFormat(header: string | undefined): FormatChoice | null {
  if (header === undefined || header === "") return JSON_CHOICE;
  rankMediaTypes(header, FORMAT_TYPES, FORMAT_SUBTYPES, formatQ, formatSpec);
  const jsonQ = formatQ[0]!;
  const textPreferred = formatQ[2]! > formatQ[1]! || (formatQ[2]! === formatQ[1]! && formatSpec[2]! > formatSpec[1]!);
  const toonQ = textPreferred ? formatQ[2]! : formatQ[1]!;
  const toonSpec = textPreferred ? formatSpec[2]! : formatSpec[1]!;
  if (toonQ > 0 && (toonQ > jsonQ || (toonQ === jsonQ && toonSpec >= 2))) return textPreferred ? TOON_TEXT_CHOICE : TOON_CHOICE;
  return jsonQ > 0 ? JSON_CHOICE : null;
}
