// Registered claim checks (RFC 7519 §4.1): exp, nbf, iat (with clock tolerance), iss, aud,
// sub, required claims and maxAge. Numeric dates must be JSON numbers (seconds, may be
// fractional); strings such as "1700000000" are refused rather than coerced.
import { JwtError } from "./jwt-error.js";

/** The registered claims, as they appear in a verified payload. */
export interface JwtPayload {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | readonly string[];
  readonly exp?: number;
  readonly nbf?: number;
  readonly iat?: number;
  readonly jti?: string;
  readonly [claim: string]: unknown;
}

export interface JwtClaimOptions {
  /** Accepted `iss` values (exact match). */
  readonly issuer?: string | readonly string[];
  /** Accepted audiences: the token's `aud` (string or array) must contain one of them. */
  readonly audience?: string | readonly string[];
  /** Required `sub` value. */
  readonly subject?: string;
  /** Claims that must be present (any JSON value but null). */
  readonly requiredClaims?: readonly string[];
  /** Require `exp` (default true): tokens without an expiry are refused. */
  readonly requireExpiration?: boolean;
  /** Maximum age in seconds, measured from `iat` (which becomes required). */
  readonly maxAge?: number;
  /** Leeway in seconds for exp/nbf/iat/maxAge (default 0). */
  readonly clockTolerance?: number;
}

/** Claim options compiled once per verifier. */
export interface CompiledClaimRules {
  readonly issuers: readonly string[] | undefined;
  readonly audiences: readonly string[] | undefined;
  readonly subject: string | undefined;
  readonly required: readonly string[];
  readonly maxAge: number | undefined;
  readonly tolerance: number;
}

function list(value: string | readonly string[] | undefined, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const values = typeof value === "string" ? [value] : [...value];
  if (values.length === 0 || !values.every((v) => typeof v === "string" && v.length > 0)) {
    throw new JwtError("invalid_config", `${name} must be a non-empty string or list of strings`);
  }
  return values;
}

function nonNegative(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new JwtError("invalid_config", `${name} must be a non-negative number of seconds`);
  }
  return value;
}

export function compileClaimRules(options: JwtClaimOptions): CompiledClaimRules {
  const required = new Set(options.requiredClaims ?? []);
  if (options.requireExpiration !== false) required.add("exp");
  const maxAge = nonNegative(options.maxAge, "maxAge");
  if (maxAge !== undefined) required.add("iat");
  if (options.subject !== undefined && (typeof options.subject !== "string" || options.subject === "")) {
    throw new JwtError("invalid_config", "subject must be a non-empty string");
  }
  return {
    issuers: list(options.issuer, "issuer"),
    audiences: list(options.audience, "audience"),
    subject: options.subject,
    required: [...required],
    maxAge,
    tolerance: nonNegative(options.clockTolerance, "clockTolerance") ?? 0,
  };
}

function numericDate(payload: Record<string, unknown>, name: string): number | undefined {
  const value = payload[name];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new JwtError("claim_invalid", `"${name}" must be a NumericDate (number)`);
  return value;
}

function stringClaim(payload: Record<string, unknown>, name: string): string | undefined {
  const value = payload[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new JwtError("claim_invalid", `"${name}" must be a string`);
  return value;
}

/** Throws JwtError when a claim fails; `nowSeconds` is the current time in (fractional) seconds. */
export function checkClaims(payload: Record<string, unknown>, rules: CompiledClaimRules, nowSeconds: number): void {
  for (const name of rules.required) {
    if (payload[name] === undefined || payload[name] === null) throw new JwtError("claim_missing", `"${name}" claim is required`);
  }
  const tolerance = rules.tolerance;
  const exp = numericDate(payload, "exp");
  const nbf = numericDate(payload, "nbf");
  const iat = numericDate(payload, "iat");
  // RFC 7519 §4.1.4: the token must not be accepted on or after exp.
  if (exp !== undefined && nowSeconds - tolerance >= exp) throw new JwtError("expired", "token has expired");
  if (nbf !== undefined && nowSeconds + tolerance < nbf) throw new JwtError("not_before", "token is not valid yet");
  if (iat !== undefined && iat > nowSeconds + tolerance) throw new JwtError("issued_in_future", "token was issued in the future");
  if (rules.maxAge !== undefined && iat !== undefined && nowSeconds - tolerance - iat > rules.maxAge) {
    throw new JwtError("too_old", "token is older than the allowed maximum age");
  }

  const iss = stringClaim(payload, "iss");
  if (rules.issuers !== undefined) {
    if (iss === undefined) throw new JwtError("claim_missing", '"iss" claim is required');
    if (!rules.issuers.includes(iss)) throw new JwtError("claim_mismatch", "unexpected issuer");
  }
  const sub = stringClaim(payload, "sub");
  if (rules.subject !== undefined) {
    if (sub === undefined) throw new JwtError("claim_missing", '"sub" claim is required');
    if (sub !== rules.subject) throw new JwtError("claim_mismatch", "unexpected subject");
  }
  const aud = payload["aud"];
  if (aud !== undefined && typeof aud !== "string" && !(Array.isArray(aud) && aud.every((a) => typeof a === "string"))) {
    throw new JwtError("claim_invalid", '"aud" must be a string or an array of strings');
  }
  if (rules.audiences !== undefined) {
    if (aud === undefined) throw new JwtError("claim_missing", '"aud" claim is required');
    const tokenAudiences = typeof aud === "string" ? [aud] : (aud as readonly string[]);
    if (!tokenAudiences.some((a) => rules.audiences!.includes(a))) throw new JwtError("claim_mismatch", "unexpected audience");
  }
  const jti = payload["jti"];
  if (jti !== undefined && typeof jti !== "string") throw new JwtError("claim_invalid", '"jti" must be a string');
}
