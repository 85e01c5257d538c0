// The JWS verification core shared by the JWT verifier and raw JWS users: configuration
// checks (allow-list, keys vs algorithms), key lookup, and signature checks for the compact
// and JSON serializations. Claims are not looked at here (see jwt-verifier.ts).
import { isJwsAlgorithm, jwsAlgorithmSpec, jwsVerify } from "./jws-algorithms.js";
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { DEFAULT_MAX_TOKEN_LENGTH, parseCompactJws } from "./jws-compact.js";
import type { ParsedJws } from "./jws-compact.js";
import type { JwsHeader } from "./jws-header.js";
import { parseJwsJson } from "./jws-json.js";
import { importJwsKey, keyMismatchReason } from "./jwk-key.js";
import type { JwsKey, JwtKeyInput } from "./jwk-key.js";
import { JwsKeyStore, importVerificationKeys } from "./jwk-set.js";
import type { JwkSetInput } from "./jwk-set.js";
import { RemoteJwks } from "./jwks-remote.js";
import type { RemoteJwksOptions } from "./jwks-remote.js";
import { JwtError } from "./jwt-error.js";

export interface JwsKeyOptions {
  /** Allowed algorithms. Decides alone; the token header never widens it. `none` is refused. */
  readonly algorithms: readonly JwsAlgorithm[];
  /** One key: HMAC secret (string/bytes), PEM/DER, KeyObject or JWK. */
  readonly key?: JwtKeyInput;
  /** Several keys: a JWK Set object or a list of key inputs. */
  readonly keys?: JwkSetInput | readonly JwtKeyInput[];
  /** Fetch keys from a JWK Set URL (asymmetric algorithms only). */
  readonly jwksUrl?: string | URL;
  /** Cache/refresh settings for `jwksUrl`. */
  readonly jwks?: RemoteJwksOptions;
  /** Longest token accepted, in characters (default 8192). */
  readonly maxTokenLength?: number;
  /** Clock in ms since the epoch (default Date.now). Also drives the JWKS cache. */
  readonly now?: () => number;
}

export interface JwsVerifierOptions extends JwsKeyOptions {
  /** Understand RFC 7797 `b64:false` when listed in `crit` (default false). */
  readonly allowUnencodedPayload?: boolean;
}

/** Where the keys come from: a key store answers at once, a remote JWKS with a promise. Exported for the JWT verifier. */
export interface KeySource {
  candidates(alg: JwsAlgorithm, kid: string | undefined): readonly JwsKey[] | Promise<readonly JwsKey[]>;
}

export interface JwsVerification {
  readonly header: JwsHeader;
  readonly algorithm: JwsAlgorithm;
  readonly payload: Buffer;
  /** The key that verified the signature. */
  readonly key: JwsKey;
}

export interface JwsVerifier {
  /** Verify a compact JWS; `detachedPayload` for detached content. Throws JwtError. */
  verify(jws: string, detachedPayload?: Uint8Array | string): Promise<JwsVerification>;
  /** Verify a JWS JSON serialization (flattened or general). Every signature must verify. */
  verifyJson(jws: unknown, detachedPayload?: Uint8Array | string): Promise<JwsVerification[]>;
}

function configError(message: string): never {
  throw new JwtError("invalid_config", message);
}

/** Check the options and build the key source. Exported for the JWT verifier. */
export function compileKeySource(options: JwsKeyOptions): { algorithms: ReadonlySet<string>; source: KeySource } {
  const list = options.algorithms as readonly unknown[];
  if (!Array.isArray(list) || list.length === 0) configError("algorithms must be a non-empty list");
  for (const alg of list) {
    if (alg === "none") configError('algorithm "none" can never be allowed');
    if (!isJwsAlgorithm(alg)) configError(`unknown algorithm ${JSON.stringify(alg)}`);
  }
  const algorithms = [...new Set(options.algorithms)];
  const given = [options.key !== undefined, options.keys !== undefined, options.jwksUrl !== undefined].filter(Boolean).length;
  if (given !== 1) configError("give exactly one of key, keys or jwksUrl");

  if (options.jwksUrl !== undefined) {
    const symmetric = algorithms.filter((alg) => jwsAlgorithmSpec(alg).family === "hmac");
    if (symmetric.length > 0) configError(`${symmetric.join(", ")} cannot be used with a JWKS URL: secrets are never published`);
    const remote = new RemoteJwks(options.jwksUrl, algorithms, options.now ? { now: options.now, ...options.jwks } : options.jwks);
    return { algorithms: new Set(algorithms), source: remote };
  }

  const keys = options.key !== undefined ? [importJwsKey(options.key, "verify")] : importVerificationKeys(options.keys!);
  if (keys.length === 0) configError("no usable verification key was given");
  const store = new JwsKeyStore(keys, algorithms);
  const uncovered = store.uncovered(algorithms);
  if (uncovered.length > 0) {
    // Explain with the first key's reason, which is usually the useful one (short secret, PEM for HS256, ...).
    const reasons = uncovered.map((alg) => `${alg}: ${keyMismatchReason(keys[0]!, alg) ?? "no key with a matching kid"}`);
    throw new JwtError("invalid_key", `no configured key can verify ${reasons.join("; ")}`);
  }
  return { algorithms: new Set(algorithms), source: store };
}

function toBytes(value: Uint8Array | string | undefined): Uint8Array | undefined {
  return typeof value === "string" ? Buffer.from(value, "utf8") : value;
}

/** Verify a parsed JWS against the candidate keys; returns the key that verified. */
export async function verifyParsedJws(parsed: ParsedJws, source: KeySource): Promise<JwsKey> {
  return keyThatVerifies(parsed, await source.candidates(parsed.alg, parsed.kid));
}

/**
 * The key among `candidates` that verifies `parsed`, without a promise: the JWT verifier calls it
 * directly when its keys are at hand (a key or a key set; a JWKS URL gives a promise).
 */
export function keyThatVerifies(parsed: ParsedJws, candidates: readonly JwsKey[]): JwsKey {
  if (candidates.length === 0) {
    throw new JwtError("key_not_found", parsed.kid === undefined ? `no key for ${parsed.alg}` : `no key for ${parsed.alg} with this kid`);
  }
  for (const key of candidates) {
    if (jwsVerify(parsed.alg, key.keyObject, parsed.signingInput, parsed.signature)) return key;
  }
  throw new JwtError("bad_signature", "signature does not verify");
}

export function createJwsVerifier(options: JwsVerifierOptions): JwsVerifier {
  const { algorithms, source } = compileKeySource(options);
  const maxLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  const allowUnencoded = options.allowUnencodedPayload === true;

  return {
    async verify(jws, detachedPayload) {
      const parsed = parseCompactJws(jws, { algorithms, maxLength, allowUnencoded, detachedPayload: toBytes(detachedPayload) });
      const key = await verifyParsedJws(parsed, source);
      return { header: parsed.header, algorithm: parsed.alg, payload: parsed.payload, key };
    },
    async verifyJson(jws, detachedPayload) {
      const signatures = parseJwsJson(jws, { algorithms, maxLength, allowUnencoded, detachedPayload: toBytes(detachedPayload) });
      const results: JwsVerification[] = [];
      for (const parsed of signatures) {
        const key = await verifyParsedJws(parsed, source);
        results.push({ header: parsed.header, algorithm: parsed.alg, payload: parsed.payload, key });
      }
      return results;
    },
  };
}
