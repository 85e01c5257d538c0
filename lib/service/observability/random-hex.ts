// Random lowercase hex for trace and span ids, cut from a pool refilled 4 KiB at a time, so an id
// costs a substring instead of a call into the CSPRNG (the same idea as randomUUID's cache).
import { Buffer } from "node:buffer";
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let hex = "";
let pos = 0;

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
  return nonZeroHex(32);
}

/** A W3C span (parent) id: 16 hex characters, never all zeros. */
export function newSpanId(): string {
  return nonZeroHex(16);
}
