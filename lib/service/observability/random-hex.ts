// Random lowercase hex for trace and span ids, cut from a pool refilled 4 KiB at a time, so an id
// costs a substring instead of a call into the CSPRNG (the same idea as randomUUID's cache).
import { Buffer } from "node:buffer";
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let hex = "";
let pos = 0;
/** Where (hex position in the pool) the last trace id newTraceId() returned starts. */
let lastTraceAt = 0;

/** Move to the next `chars` (even, at most 64) random hex characters; returns where they start. */
function take(chars: number): number {
  if (pos + chars + 1 > hex.length) {
    randomFillSync(pool);
    hex = pool.toString("hex");
    pos = 0;
  }
  const at = pos;
  // Kept even, so every id starts on a byte boundary of the pool (allZero reads whole bytes).
  pos += chars + (chars & 1);
  return at;
}

/** `chars` (even, at most 64) random lowercase hex characters. */
export function randomHex(chars: number): string {
  const at = take(chars);
  return hex.substring(at, at + chars);
}

/** True when the `chars` hex characters from `at` are all zeros, read from the pool's bytes (no string compare). */
function allZero(at: number, chars: number): boolean {
  const end = (at + chars) >> 1;
  for (let i = at >> 1; i < end; i++) if (pool[i] !== 0) return false;
  return true;
}

/** `chars` random hex characters, never all zeros (W3C ids). */
function nonZeroHex(chars: number): string {
  let at = take(chars);
  while (allZero(at, chars)) at = take(chars);
  return hex.substring(at, at + chars);
}

/** A W3C trace id: 32 hex characters, never all zeros. */
export function newTraceId(): string {
  let at = take(32);
  while (allZero(at, 32)) at = take(32);
  lastTraceAt = at;
  return hex.substring(at, at + 32);
}

/**
 * The last 13 hex digits (52 bits) of the trace id newTraceId() returned last, as a number, read
 * from the pool's bytes instead of the id's text: a ratio sampler's input (issue 34: reading 13
 * hex digits of a sliced string cost ~770 instructions a request, this ~50). Valid until the next
 * id is drawn (a refill overwrites the pool), so call it right after newTraceId().
 */
export function traceIdLow52(): number {
  // The id's 16 bytes start at byte lastTraceAt / 2 (ids start on a byte boundary); its last 13
  // digits are the low nibble of byte 9 and bytes 10-15. Two parts of 28 and 24 bits, each exact
  // in int32 arithmetic, joined in a double (exact below 2^53).
  const b = lastTraceAt >> 1;
  const high = ((pool[b + 9]! & 0x0f) << 24) | (pool[b + 10]! << 16) | (pool[b + 11]! << 8) | pool[b + 12]!;
  const low = (pool[b + 13]! << 16) | (pool[b + 14]! << 8) | pool[b + 15]!;
  return high * 0x1000000 + low;
}

/** A W3C span (parent) id: 16 hex characters, never all zeros. */
export function newSpanId(): string {
  return nonZeroHex(16);
}
