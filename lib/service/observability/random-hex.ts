// Random lowercase hex for trace and span ids, cut from a pool refilled 4 KiB at a time, so an id
// costs a substring instead of a call into the CSPRNG (the same idea as randomUUID's cache).
import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let hex = "";
let pos = 0;

/** `chars` (even, at most 64) random lowercase hex characters. */
export function randomHex(chars: number): string {
  if (pos + chars > hex.length) {
    randomFillSync(pool);
    hex = pool.toString("hex");
    pos = 0;
  }
  const out = hex.substring(pos, pos + chars);
  pos += chars;
  return out;
}

const ZERO_TRACE = "00000000000000000000000000000000";
const ZERO_SPAN = "0000000000000000";

/** A W3C trace id: 32 hex characters, never all zeros. */
export function newTraceId(): string {
  let id = randomHex(32);
  while (id === ZERO_TRACE) id = randomHex(32);
  return id;
}

/** A W3C span (parent) id: 16 hex characters, never all zeros. */
export function newSpanId(): string {
  let id = randomHex(16);
  while (id === ZERO_SPAN) id = randomHex(16);
  return id;
}
