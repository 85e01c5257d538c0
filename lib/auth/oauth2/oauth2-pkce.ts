// PKCE (RFC 7636) and the random values of an OAuth2 authorization request.
import { createHash, randomBytes } from "node:crypto";

/** A random base64url string from `bytes` random bytes (32 bytes: 43 characters). */
export function randomUrlToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** The S256 code challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export interface PkcePair {
  /** 43 characters of base64url (RFC 7636 §4.1 allows 43-128 unreserved characters). */
  readonly verifier: string;
  readonly challenge: string;
  readonly method: "S256";
}

export function createPkcePair(): PkcePair {
  const verifier = randomUrlToken(32);
  return { verifier, challenge: pkceChallenge(verifier), method: "S256" };
}
