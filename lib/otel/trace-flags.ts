// W3C trace flags as keel's span records carry them: two hex characters, bit 0 "sampled".

export function isSampled(traceFlags: string): boolean {
  const n = Number.parseInt(traceFlags, 16);
  return Number.isInteger(n) && (n & 1) === 1;
}
