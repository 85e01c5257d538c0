// W3C trace flags as keel's span records carry them: two hex characters, bit 0 "sampled".

export function isSampled(traceFlags: string): boolean {
  // The two values nearly every span has, without parsing.
  if (traceFlags === "01") return true;
  if (traceFlags === "00") return false;
  const n = Number.parseInt(traceFlags, 16);
  return Number.isInteger(n) && (n & 1) === 1;
}
