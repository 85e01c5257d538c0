// W3C Trace Context `traceparent`: `{version}-{trace-id}-{parent-id}-{flags}`, all lowercase hex.
// Parsing is a fixed-length scan (no regex); anything malformed is ignored, as the
// recommendation says, and a fresh trace starts instead.

export const TRACEPARENT_HEADER = "traceparent";

export interface TraceParent {
  /** 32 lowercase hex characters, not all zeros. */
  readonly traceId: string;
  /** The caller's span id: 16 lowercase hex characters, not all zeros. */
  readonly parentId: string;
  /** Two hex characters; bit 0 is "sampled". */
  readonly flags: string;
}

function isLowerHex(s: string, from: number, to: number): boolean {
  let nonZero = false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (c !== 48) nonZero = true;
    } else if (c >= 97 && c <= 102) {
      nonZero = true;
    } else {
      return false;
    }
  }
  return nonZero;
}

function isHexPair(s: string, at: number): boolean {
  for (let i = at; i < at + 2; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** Parse a traceparent header; null when absent or malformed. */
export function parseTraceParent(value: string | string[] | undefined): TraceParent | null {
  if (typeof value !== "string") return null; // repeated headers are invalid
  const n = value.length;
  if (n < 55) return null;
  // version: two hex digits, "ff" is forbidden; version 00 is exactly 55 characters, later
  // versions may append fields after a dash.
  if (!isHexPair(value, 0) || (value.charCodeAt(0) === 102 && value.charCodeAt(1) === 102)) return null;
  const v00 = value.charCodeAt(0) === 48 && value.charCodeAt(1) === 48;
  if (v00 ? n !== 55 : n > 55 && value.charCodeAt(55) !== 45) return null;
  if (value.charCodeAt(2) !== 45 || value.charCodeAt(35) !== 45 || value.charCodeAt(52) !== 45) return null;
  if (!isLowerHex(value, 3, 35) || !isLowerHex(value, 36, 52) || !isHexPair(value, 53)) return null;
  return { traceId: value.substring(3, 35), parentId: value.substring(36, 52), flags: value.substring(53, 55) };
}

/** Format a version-00 traceparent. */
export function formatTraceParent(traceId: string, spanId: string, flags: string): string {
  const value = "00-" + traceId + "-" + spanId + "-" + flags;
  // Concatenation makes a rope (a V8 ConsString). Reading a character flattens it in place, once:
  // node validates every header value with a regular expression, and a rope would send that
  // check down V8's slow runtime path (measured: ~500 instructions a response).
  value.charCodeAt(0);
  return value;
}

/** True when trace flags (two hex characters) have bit 0, "sampled", set. */
export function isSampledFlags(flags: string): boolean {
  // The two values nearly every request has, without parsing.
  if (flags === "01") return true;
  if (flags === "00") return false;
  const n = Number.parseInt(flags, 16);
  return Number.isInteger(n) && (n & 1) === 1;
}

/** The flags with bit 0 set or cleared; the other bits are kept (malformed flags count as 00). */
export function withSampledFlag(flags: string, sampled: boolean): string {
  if (flags === "01" || flags === "00") return sampled ? "01" : "00";
  const parsed = Number.parseInt(flags, 16);
  const n = Number.isInteger(parsed) && parsed >= 0 && parsed <= 0xff ? parsed : 0;
  const next = sampled ? n | 1 : n & 0xfe;
  return (next < 16 ? "0" : "") + next.toString(16);
}
