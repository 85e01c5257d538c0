// The Range header (RFC 9110 §14.1.2), for one representation of `size` bytes. Only a single
// byte range is served as 206: a list of several ranges is answered with the whole file (200),
// which RFC 9110 §14.2 allows ("a server MAY ignore the Range header field") and which every
// client handles, instead of multipart/byteranges, which few do. A header that is not a
// well-formed `bytes=` range is ignored the same way; a well-formed one that selects nothing is
// the caller's 416.

/** First and last byte positions, inclusive. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** `ignore`: serve the whole representation; `unsatisfiable`: 416; otherwise the range to send. */
export type RangeDecision = ByteRange | "ignore" | "unsatisfiable";

/** Digits only, at most 15 of them (every such number is a safe integer). */
const POSITION = /^\d{1,15}$/;

export function parseByteRange(header: string, size: number): RangeDecision {
  const eq = header.indexOf("=");
  if (eq === -1 || header.slice(0, eq).trim().toLowerCase() !== "bytes") return "ignore";
  const spec = header.slice(eq + 1).trim();
  if (spec.includes(",")) return "ignore";
  const dash = spec.indexOf("-");
  if (dash === -1) return "ignore";
  const first = spec.slice(0, dash).trim();
  const last = spec.slice(dash + 1).trim();

  if (first === "") {
    // Suffix range `-n`: the last n bytes (the whole file when it is shorter).
    if (!POSITION.test(last)) return "ignore";
    const length = Number(last);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  if (!POSITION.test(first)) return "ignore";
  const start = Number(first);
  let end = size - 1;
  if (last !== "") {
    if (!POSITION.test(last)) return "ignore";
    end = Number(last);
    if (end < start) return "ignore"; // syntactically invalid (§14.1.1): ignored, not a 416
    if (end > size - 1) end = size - 1;
  }
  if (start >= size) return "unsatisfiable";
  return { start, end };
}
