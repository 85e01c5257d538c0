// JWT signing. Keys are imported and checked once per signer (the same policy as
// verification: family, curve, HMAC length, RSA size), then each sign() is one JSON.stringify
// plus one signature.
import { isJwsAlgorithm } from "./jws-algorithms.js";
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { signCompactJws } from "./jws-compact.js";
import { importJwsKey, keyMismatchReason } from "./jwk-key.js";
import type { JwsKey, JwtKeyInput } from "./jwk-key.js";
import { JwtError } from "./jwt-error.js";

export interface JwtSignerOptions {
  readonly algorithm: JwsAlgorithm;
  /** HMAC secret (string/bytes), private PEM/DER, private KeyObject or private JWK. */
  readonly key: JwtKeyInput;
  /** `kid` header; defaults to the JWK's kid when the key is a JWK that has one. */
  readonly kid?: string;
  /** `typ` header (default "JWT"; pass null to omit). */
  readonly typ?: string | null;
  /** Lifetime in seconds: sets `exp` = now + expiresIn. */
  readonly expiresIn?: number;
  /** Sets `nbf` = now + notBefore (seconds; may be 0). */
  readonly notBefore?: number;
  readonly issuer?: string;
  readonly audience?: string | readonly string[];
  /** Set `iat` (default true). */
  readonly issuedAt?: boolean;
  /** Clock in ms since the epoch (default Date.now). */
  readonly now?: () => number;
}

export interface JwtSignOverrides {
  readonly subject?: string;
  readonly jwtId?: string;
  readonly expiresIn?: number;
}

export interface JwtSigner {
  sign(claims: Readonly<Record<string, unknown>>, overrides?: JwtSignOverrides): string;
}

function seconds(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) throw new JwtError("invalid_config", `${name} must be a number of seconds`);
  return value;
}

/**
 * A JWT signer for one key: `sign(claims, { subject, jwtId, expiresIn })` sets `iat`, `exp`,
 * `nbf`, `iss` and `aud` from the options and refuses a claim given twice.
 *
 * @example
 * ```ts
 * const signer = createJwtSigner({ algorithm: "HS256", key: secret, expiresIn: 3600, issuer: "todo-api" });
 * const token = signer.sign({ role: "admin" }, { subject: "alice" });
 * ```
 * @see docs/features/jose.md
 */
export function createJwtSigner(options: JwtSignerOptions): JwtSigner {
  const alg = options.algorithm;
  if (!isJwsAlgorithm(alg)) throw new JwtError("invalid_config", `unknown algorithm ${JSON.stringify(alg)}`);
  const key: JwsKey = importJwsKey(options.key, "sign");
  const reason = keyMismatchReason(key, alg);
  if (reason !== undefined) throw new JwtError("invalid_key", `cannot sign ${alg}: ${reason}`);
  const expiresIn = seconds(options.expiresIn, "expiresIn");
  const notBefore = seconds(options.notBefore, "notBefore");
  const now = options.now ?? Date.now;
  const header: Record<string, unknown> = {};
  if (options.typ !== null) header["typ"] = options.typ ?? "JWT";
  const kid = options.kid ?? key.kid;
  if (kid !== undefined) header["kid"] = kid;

  return {
    sign(claims, overrides = {}) {
      if (typeof claims !== "object" || claims === null || Array.isArray(claims)) {
        throw new JwtError("invalid_config", "claims must be a plain object");
      }
      const issuedAt = Math.floor(now() / 1000);
      const payload: Record<string, unknown> = { ...claims };
      const set = (name: string, value: unknown): void => {
        if (value === undefined) return;
        if (payload[name] !== undefined) throw new JwtError("invalid_config", `claim "${name}" is given twice (claims and options)`);
        payload[name] = value;
      };
      if (options.issuedAt !== false) set("iat", issuedAt);
      const lifetime = seconds(overrides.expiresIn, "expiresIn") ?? expiresIn;
      if (lifetime !== undefined) set("exp", issuedAt + lifetime);
      if (notBefore !== undefined) set("nbf", issuedAt + notBefore);
      set("iss", options.issuer);
      set("aud", options.audience);
      set("sub", overrides.subject);
      set("jti", overrides.jwtId);
      return signCompactJws(JSON.stringify(payload), { algorithm: alg, key, header });
    },
  };
}

/** One-off signing; prefer createJwtSigner when signing many tokens with one key. */
export function signJwt(
  claims: Readonly<Record<string, unknown>>,
  options: JwtSignerOptions & JwtSignOverrides,
): string {
  return createJwtSigner(options).sign(claims, options);
}

export interface JwsSignOptions {
  readonly algorithm: JwsAlgorithm;
  readonly key: JwtKeyInput;
  /** Extra protected header members (`alg` is always `algorithm`). */
  readonly header?: Readonly<Record<string, unknown>>;
}

/** Sign arbitrary bytes as a compact JWS (not necessarily a JWT). */
export function signJws(payload: Uint8Array | string, options: JwsSignOptions): string {
  if (!isJwsAlgorithm(options.algorithm)) throw new JwtError("invalid_config", `unknown algorithm ${JSON.stringify(options.algorithm)}`);
  const key = importJwsKey(options.key, "sign");
  const reason = keyMismatchReason(key, options.algorithm);
  if (reason !== undefined) throw new JwtError("invalid_key", `cannot sign ${options.algorithm}: ${reason}`);
  return signCompactJws(payload, { algorithm: options.algorithm, key, header: options.header });
}
