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

// A new trace's last 52 bits, drawn before its id: what a ratio sampler decides on (issue 34).
// Most requests of a service that samples a few percent never read their trace id, so its text
// is made only when read (traceIdEndingWith). Bytes only, from a pool of their own: no hex text.
const bits = Buffer.allocUnsafe(POOL_BYTES);
const bitsView = new DataView(bits.buffer, bits.byteOffset, POOL_BYTES);
let bitsAt = POOL_BYTES;
let drawnHigh = 0;
let drawnLow = 0;

/**
 * Draw the last 52 bits of a new trace id (13 hex digits) and return them as a number
 * (0 <= n < 2^52, exact in a double); drawnHigh28() and drawnLow24() are the same bits in two
 * parts that stay small integers, for the id to be made later.
 */
export function drawTraceIdBits(): number {
  if (bitsAt > POOL_BYTES - 7) refillBits();
  const b = bitsAt;
  bitsAt = b + 7;
  // Two big-endian reads of the same 7 bytes as one at a time: bytes 0-3 (high nibble of byte 0
  // dropped) and 4-6. Kept small on purpose: it is inlined into the access-log layer on every
  // request, and V8's inlining budget it took (210 bytes of bytecode with seven indexed reads)
  // left the kernel's own steps compiled apart in a server that samples (issue 34).
  drawnHigh = bitsView.getUint32(b) & 0x0fffffff;
  drawnLow = bitsView.getUint32(b + 3) & 0xffffff;
  return drawnHigh * 0x1000000 + drawnLow;
}

function refillBits(): void {
  randomFillSync(bits);
  bitsAt = 0;
}

/** The high 28 of the 52 bits drawTraceIdBits() drew last (the id's digits 20 to 26). */
export function drawnHigh28(): number {
  return drawnHigh;
}

/** The low 24 of the 52 bits drawTraceIdBits() drew last (the id's last 6 digits). */
export function drawnLow24(): number {
  return drawnLow;
}

/**
 * A W3C trace id whose last 13 hex digits spell `high28` (7 digits) then `low24` (6 digits), the
 * 19 before them random: the id of a trace sampled on bits drawTraceIdBits() drew. Never all zeros.
 */
export function traceIdEndingWith(high28: number, low24: number): string {
  let at = take(20);
  // All zeros is no valid id: possible only when the bits are zero, then the random part is drawn again.
  if (high28 === 0 && low24 === 0) while (allZero(at, 18) && hex.charCodeAt(at + 18) === 48) at = take(20);
  return hex.substring(at, at + 19) + (high28 + 0x10000000).toString(16).substring(1) + (low24 + 0x1000000).toString(16).substring(1);
}

/** A W3C span (parent) id: 16 hex characters, never all zeros. */
export function newSpanId(): string {
  return nonZeroHex(16);
}
