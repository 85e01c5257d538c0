// Constant-time comparison of secrets given as strings (CSRF tokens, API keys, ...).
// Both sides are first reduced to HMAC-SHA256 under a random per-process key, so the compare
// always runs over 32 bytes: neither the content nor the length of the secret leaks through
// timing, and an attacker cannot precompute inputs because the HMAC key is unknown to them.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const PROCESS_KEY = randomBytes(32);

function digest(value: string): Buffer {
  return createHmac("sha256", PROCESS_KEY).update(value, "utf8").digest();
}

/** Constant-time string equality. Non-string arguments (hostile input) compare unequal. */
export function timingSafeEqualString(a: string, b: string): boolean {
  if (typeof a !== "string" || typeof b !== "string") return false;
  // Always hash both, so the work does not depend on which argument is malformed or longer.
  const left = digest(a);
  const right = digest(b);
  return timingSafeEqual(left, right);
}

/** Constant-time equality of two byte strings of possibly different length (length is checked first). */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return timingSafeEqual(a, b);
}
