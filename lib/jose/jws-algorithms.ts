// The JWS algorithms we implement (RFC 7518 §3, RFC 8037 for EdDSA) and their sign/verify
// primitives over node:crypto. `none` is deliberately absent: it is never an algorithm here.
import { constants, sign as cryptoSign, verify as cryptoVerify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { hmac, hmacMatches } from "./hmac.js";

export type JwsAlgorithm =
  | "HS256" | "HS384" | "HS512"
  | "RS256" | "RS384" | "RS512"
  | "PS256" | "PS384" | "PS512"
  | "ES256" | "ES384" | "ES512"
  | "EdDSA";

/** Key families: what kind of key material an algorithm needs. */
export type JwsKeyFamily = "hmac" | "rsa" | "rsa-pss" | "ec" | "okp";

export interface JwsAlgorithmSpec {
  readonly name: JwsAlgorithm;
  readonly family: JwsKeyFamily;
  /** node:crypto digest name; null for EdDSA (the hash is part of the signature scheme). */
  readonly hash: "sha256" | "sha384" | "sha512" | null;
  /** Digest size in bytes: minimum HMAC secret length and PSS salt length. */
  readonly hashBytes: number;
  /** For ES*: the OpenSSL curve name the key must use, and the JOSE `crv`. */
  readonly curve?: { readonly openssl: string; readonly jose: "P-256" | "P-384" | "P-521"; readonly coordinateBytes: number };
}

const P256 = { openssl: "prime256v1", jose: "P-256", coordinateBytes: 32 } as const;
const P384 = { openssl: "secp384r1", jose: "P-384", coordinateBytes: 48 } as const;
const P521 = { openssl: "secp521r1", jose: "P-521", coordinateBytes: 66 } as const;

const SPECS: Readonly<Record<JwsAlgorithm, JwsAlgorithmSpec>> = {
  HS256: { name: "HS256", family: "hmac", hash: "sha256", hashBytes: 32 },
  HS384: { name: "HS384", family: "hmac", hash: "sha384", hashBytes: 48 },
  HS512: { name: "HS512", family: "hmac", hash: "sha512", hashBytes: 64 },
  RS256: { name: "RS256", family: "rsa", hash: "sha256", hashBytes: 32 },
  RS384: { name: "RS384", family: "rsa", hash: "sha384", hashBytes: 48 },
  RS512: { name: "RS512", family: "rsa", hash: "sha512", hashBytes: 64 },
  PS256: { name: "PS256", family: "rsa-pss", hash: "sha256", hashBytes: 32 },
  PS384: { name: "PS384", family: "rsa-pss", hash: "sha384", hashBytes: 48 },
  PS512: { name: "PS512", family: "rsa-pss", hash: "sha512", hashBytes: 64 },
  ES256: { name: "ES256", family: "ec", hash: "sha256", hashBytes: 32, curve: P256 },
  ES384: { name: "ES384", family: "ec", hash: "sha384", hashBytes: 48, curve: P384 },
  ES512: { name: "ES512", family: "ec", hash: "sha512", hashBytes: 64, curve: P521 },
  EdDSA: { name: "EdDSA", family: "okp", hash: null, hashBytes: 0 },
};

export const JWS_ALGORITHMS: readonly JwsAlgorithm[] = Object.freeze(Object.keys(SPECS) as JwsAlgorithm[]);

/** Exact, case-sensitive membership test (a header `alg` is attacker input). */
export function isJwsAlgorithm(value: unknown): value is JwsAlgorithm {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(SPECS, value);
}

export function jwsAlgorithmSpec(alg: JwsAlgorithm): JwsAlgorithmSpec {
  return SPECS[alg];
}

/** Compute a JWS signature. `key` must already be checked to fit `alg` (see jwk-key.ts). */
export function jwsSign(alg: JwsAlgorithm, key: KeyObject, signingInput: Uint8Array): Buffer {
  const spec = SPECS[alg];
  switch (spec.family) {
    case "hmac":
      return hmac(spec.hash!, key, signingInput);
    case "rsa":
      return cryptoSign(spec.hash, signingInput, { key, padding: constants.RSA_PKCS1_PADDING });
    case "rsa-pss":
      return cryptoSign(spec.hash, signingInput, {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: spec.hashBytes,
      });
    case "ec":
      return cryptoSign(spec.hash, signingInput, { key, dsaEncoding: "ieee-p1363" });
    case "okp":
      return cryptoSign(null, signingInput, key);
  }
}

/**
 * Check a JWS signature. Never throws: malformed signatures (wrong length, r or s out of range,
 * garbage RSA blocks) are simply `false`. HMAC tags are compared in constant time.
 */
export function jwsVerify(alg: JwsAlgorithm, key: KeyObject, signingInput: Uint8Array, signature: Uint8Array): boolean {
  const spec = SPECS[alg];
  try {
    switch (spec.family) {
      case "hmac": {
        return hmacMatches(spec.hash!, key, signingInput, signature);
      }
      case "rsa":
        return cryptoVerify(spec.hash, signingInput, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
      case "rsa-pss":
        return cryptoVerify(
          spec.hash,
          signingInput,
          { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: spec.hashBytes },
          signature,
        );
      case "ec":
        // JOSE signatures are raw r||s with fixed-width halves; anything else is not ours.
        if (signature.byteLength !== 2 * spec.curve!.coordinateBytes) return false;
        return cryptoVerify(spec.hash, signingInput, { key, dsaEncoding: "ieee-p1363" }, signature);
      case "okp":
        return cryptoVerify(null, signingInput, key, signature);
    }
  } catch {
    return false;
  }
}
