// The one error type of the JWT/JWS layer. `code` is machine-readable and stable; the message
// is for humans and logs (it never contains key material). Verification-time codes map to 401
// in the HTTP layer; `invalid_key` and `invalid_config` are thrown at configuration time.

export type JwtErrorCode =
  /** Not a well-formed token: segment count, base64url, JSON, header member types. */
  | "malformed"
  /** Longer than the configured maximum (default 8 KiB). */
  | "too_large"
  /** Header `alg` is not in the verifier's allow-list (`none` never is). */
  | "alg_not_allowed"
  /** A `crit` header parameter we do not understand, or `b64:false` where it is not allowed. */
  | "crit_unsupported"
  /** No configured key fits the token (kid, key type, curve, JWK `alg`). */
  | "key_not_found"
  /** The signature does not verify. */
  | "bad_signature"
  /** `typ` header differs from the configured one. */
  | "typ_mismatch"
  /** `exp` is in the past (beyond the clock tolerance). */
  | "expired"
  /** `nbf` is in the future (beyond the clock tolerance). */
  | "not_before"
  /** `iat` is in the future (beyond the clock tolerance). */
  | "issued_in_future"
  /** `iat` is older than `maxAge`. */
  | "too_old"
  /** A required claim is absent. */
  | "claim_missing"
  /** A registered claim has the wrong type (e.g. `exp` not a number). */
  | "claim_invalid"
  /** `iss`, `aud` or `sub` does not match the expected value. */
  | "claim_mismatch"
  /** The remote JWKS could not be fetched or parsed and no cached copy exists. */
  | "jwks_unavailable"
  /** A key was refused (type, size, curve, use, alg) at configuration or import time. */
  | "invalid_key"
  /** The verifier/signer options are inconsistent. */
  | "invalid_config";

export class JwtError extends Error {
  readonly code: JwtErrorCode;

  constructor(code: JwtErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "JwtError";
    this.code = code;
  }
}

export function isJwtError(value: unknown): value is JwtError {
  return value instanceof JwtError;
}
