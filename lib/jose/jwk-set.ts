// JWK Sets (RFC 7517 §5) and the key stores the verifiers look keys up in.
import { isJwsAlgorithm } from "./jws-algorithms.js";
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { importJwk, importJwsKey, keyFitsAlgorithm } from "./jwk-key.js";
import type { JwsKey, JwtKeyInput } from "./jwk-key.js";
import { JwtError } from "./jwt-error.js";

export interface JwkSetInput {
  readonly keys: readonly unknown[];
}

export interface JwkSetParseOptions {
  /**
   * "strict" (configured keys): a signing key that fails the policy throws.
   * "lenient" (fetched keys): such keys are skipped and reported, the rest stay usable.
   */
  readonly mode: "strict" | "lenient";
  /** HMAC secrets allowed? Never for a JWKS fetched from a URL. */
  readonly allowSecrets: boolean;
}

export interface SkippedJwk {
  readonly index: number;
  readonly kid: string | undefined;
  readonly reason: string;
}

export interface ParsedJwkSet {
  readonly keys: readonly JwsKey[];
  readonly skipped: readonly SkippedJwk[];
}

export const MAX_JWKS_KEYS = 100;

function memberOf(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** Keys that are not meant for signatures at all are ignored, as RFC 7517 §5 suggests. */
function notForSignatures(jwk: unknown): string | undefined {
  const kty = memberOf(jwk, "kty");
  if (kty !== "oct" && kty !== "RSA" && kty !== "EC" && kty !== "OKP") return `unsupported kty ${JSON.stringify(kty)}`;
  const use = memberOf(jwk, "use");
  if (use !== undefined && use !== "sig") return `use is ${JSON.stringify(use)}`;
  const alg = memberOf(jwk, "alg");
  if (alg !== undefined && !isJwsAlgorithm(alg)) return `alg ${JSON.stringify(alg)} is not a JWS algorithm`;
  const ops = memberOf(jwk, "key_ops");
  if (Array.isArray(ops) && !ops.includes("verify")) return "key_ops lacks verify";
  return undefined;
}

function familyTag(key: JwsKey): string {
  return `${key.family}/${key.curve ?? ""}`;
}

/** Parse and check a JWK Set for verification. */
export function parseJwkSet(input: unknown, options: JwkSetParseOptions): ParsedJwkSet {
  const list = memberOf(input, "keys");
  if (!Array.isArray(list)) throw new JwtError("invalid_key", 'JWK Set must be an object with a "keys" array');
  if (list.length > MAX_JWKS_KEYS) throw new JwtError("invalid_key", `JWK Set has more than ${MAX_JWKS_KEYS} keys`);
  const keys: JwsKey[] = [];
  const skipped: SkippedJwk[] = [];
  for (let index = 0; index < list.length; index++) {
    const jwk: unknown = list[index];
    const kidValue = memberOf(jwk, "kid");
    const kid = typeof kidValue === "string" ? kidValue : undefined;
    const ignored = notForSignatures(jwk) ?? (!options.allowSecrets && memberOf(jwk, "kty") === "oct" ? "symmetric keys are not accepted here" : undefined);
    if (ignored !== undefined) {
      skipped.push({ index, kid, reason: ignored });
      continue;
    }
    try {
      keys.push(importJwk(jwk, "verify"));
    } catch (error) {
      if (options.mode === "strict") throw error;
      skipped.push({ index, kid, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { keys: rejectAmbiguous(keys, options, skipped), skipped };
}

/**
 * Two keys of the same family with the same kid make kid lookup ambiguous, and a set that
 * mixes HMAC secrets with public keys invites key confusion: strict mode refuses both,
 * lenient mode drops the ambiguous keys.
 */
function rejectAmbiguous(keys: JwsKey[], options: JwkSetParseOptions, skipped: SkippedJwk[]): JwsKey[] {
  const seen = new Map<string, number>();
  for (const key of keys) {
    if (key.kid === undefined) continue;
    const tag = `${key.kid}\u0000${familyTag(key)}`;
    seen.set(tag, (seen.get(tag) ?? 0) + 1);
  }
  const duplicated = (key: JwsKey): boolean =>
    key.kid !== undefined && (seen.get(`${key.kid}\u0000${familyTag(key)}`) ?? 0) > 1;
  if (options.mode === "strict") {
    const dup = keys.find(duplicated);
    if (dup) throw new JwtError("invalid_key", `JWK Set has more than one key with kid ${JSON.stringify(dup.kid)}`);
    assertNotMixed(keys);
    return keys;
  }
  return keys.filter((key, index) => {
    if (!duplicated(key)) return true;
    skipped.push({ index, kid: key.kid, reason: "duplicate kid" });
    return false;
  });
}

export function assertNotMixed(keys: readonly JwsKey[]): void {
  const secrets = keys.filter((key) => key.family === "hmac").length;
  if (secrets > 0 && secrets < keys.length) {
    throw new JwtError("invalid_key", "HMAC secrets and asymmetric keys cannot be mixed in one verifier; use two verifiers");
  }
}

/** Keys for one verifier, indexed by algorithm and kid once at configuration time. */
export class JwsKeyStore {
  readonly keys: readonly JwsKey[];
  readonly #byAlg = new Map<JwsAlgorithm, readonly JwsKey[]>();
  readonly #byAlgKid = new Map<JwsAlgorithm, Map<string, JwsKey[]>>();
  readonly #withoutKid = new Map<JwsAlgorithm, readonly JwsKey[]>();
  readonly #kids = new Set<string>();

  constructor(keys: readonly JwsKey[], algorithms: readonly JwsAlgorithm[]) {
    this.keys = keys;
    for (const key of keys) if (key.kid !== undefined) this.#kids.add(key.kid);
    for (const alg of algorithms) {
      const fitting = keys.filter((key) => keyFitsAlgorithm(key, alg));
      this.#byAlg.set(alg, fitting);
      this.#withoutKid.set(alg, fitting.filter((key) => key.kid === undefined));
      const byKid = new Map<string, JwsKey[]>();
      for (const key of fitting) {
        if (key.kid === undefined) continue;
        const bucket = byKid.get(key.kid);
        if (bucket) bucket.push(key);
        else byKid.set(key.kid, [key]);
      }
      this.#byAlgKid.set(alg, byKid);
    }
  }

  /**
   * Keys that may verify a token with this alg and kid. A token kid selects keys with that
   * kid; keys configured without a kid serve any token. No kid in the token: every fitting key.
   */
  candidates(alg: JwsAlgorithm, kid: string | undefined): readonly JwsKey[] {
    if (kid === undefined) return this.#byAlg.get(alg) ?? [];
    return this.#byAlgKid.get(alg)?.get(kid) ?? this.#withoutKid.get(alg) ?? [];
  }

  hasKid(kid: string): boolean {
    return this.#kids.has(kid);
  }

  /** Algorithms among `algorithms` that no key can verify. */
  uncovered(algorithms: readonly JwsAlgorithm[]): JwsAlgorithm[] {
    return algorithms.filter((alg) => (this.#byAlg.get(alg)?.length ?? 0) === 0);
  }
}

/** Import configured keys: a JWK Set object, or a list of key inputs. */
export function importVerificationKeys(input: JwkSetInput | readonly JwtKeyInput[]): JwsKey[] {
  if (Array.isArray(input)) {
    const keys = (input as readonly JwtKeyInput[]).map((key) => importJwsKey(key, "verify"));
    assertNotMixed(keys);
    return keys;
  }
  return [...parseJwkSet(input, { mode: "strict", allowSecrets: true }).keys];
}
