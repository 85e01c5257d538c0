// JWT verification: a compact JWS whose payload is a JSON claims set, checked against the
// verifier's algorithm allow-list, keys and claim rules. `b64:false` and unknown `crit`
// parameters are refused for JWTs.
import { DEFAULT_MAX_TOKEN_LENGTH, parseCompactJws, type ParsedJws } from "./jws-compact.js";
import type { JwsHeader } from "./jws-header.js";
import { compileKeySource, keyThatVerifies } from "./jws-verifier.js";
import type { JwsKey } from "./jwk-key.js";
import type { JwsKeyOptions } from "./jws-verifier.js";
import { checkClaims, compileClaimRules } from "./jwt-claims.js";
import type { JwtClaimOptions, JwtPayload } from "./jwt-claims.js";
import { parseJoseObject } from "./jwt-json.js";
import { JwtError } from "./jwt-error.js";

export interface JwtVerifierOptions extends JwsKeyOptions, JwtClaimOptions {
  /** Required `typ` header (e.g. "at+jwt" for RFC 9068 access tokens); compared case-insensitively, "application/" optional. */
  readonly typ?: string;
}

export interface VerifiedJwt<T extends object> {
  readonly header: JwsHeader;
  readonly payload: JwtPayload & T;
  /** kid of the key that verified the token, if it has one. */
  readonly kid: string | undefined;
}

export interface JwtVerifier {
  /** Verify signature and claims; resolves with the claims. Rejects with JwtError. */
  verify<T extends object = Record<never, never>>(token: string): Promise<JwtPayload & T>;
  /** Like verify, with the header and the verifying key's kid. */
  verifyComplete<T extends object = Record<never, never>>(token: string): Promise<VerifiedJwt<T>>;
}

function normalizeTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith("application/") ? lower.slice("application/".length) : lower;
}

/**
 * A JWT verifier: signature (algorithm allow-list; one key, a key set or a JWKS URL), then the
 * claims (`exp` required by default, `issuer`, `audience`, ...). `verify` rejects with a JwtError.
 *
 * @example
 * ```ts
 * const verifier = createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "https://id.example.com/.well-known/jwks.json", issuer: "https://id.example.com" });
 * const claims = await verifier.verify<{ role: string }>(token);
 * ```
 * @see docs/features/jose.md
 */
export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  const { algorithms, source } = compileKeySource(options);
  const rules = compileClaimRules(options);
  const maxLength = options.maxTokenLength ?? DEFAULT_MAX_TOKEN_LENGTH;
  const now = options.now ?? Date.now;
  if (options.typ !== undefined && (typeof options.typ !== "string" || options.typ === "")) {
    throw new JwtError("invalid_config", "typ must be a non-empty string");
  }
  const expectedTyp = options.typ === undefined ? undefined : normalizeTyp(options.typ);
  const parseOptions = { algorithms, maxLength, allowUnencoded: false } as const;

  /** The verified token, without a promise when the keys are at hand (everything but a JWKS URL). */
  function verifyNow<T extends object>(token: string): VerifiedJwt<T> | Promise<VerifiedJwt<T>> {
    const parsed = parseCompactJws(token, parseOptions);
    if (expectedTyp !== undefined) {
      const typ = parsed.header.typ;
      if (typeof typ !== "string" || normalizeTyp(typ) !== expectedTyp) throw new JwtError("typ_mismatch", "unexpected token type");
    }
    const candidates = source.candidates(parsed.alg, parsed.kid);
    if (Array.isArray(candidates)) return claimsOf<T>(parsed, keyThatVerifies(parsed, candidates as readonly JwsKey[]));
    return (candidates as Promise<readonly JwsKey[]>).then((list) => claimsOf<T>(parsed, keyThatVerifies(parsed, list)));
  }

  function claimsOf<T extends object>(parsed: ParsedJws, key: JwsKey): VerifiedJwt<T> {
    // The payload is only parsed once the signature proved who wrote it.
    const payload = parseJoseObject(parsed.payload, "claims");
    checkClaims(payload, rules, now() / 1000);
    return { header: parsed.header, payload: payload as JwtPayload & T, kid: key.kid };
  }

  const verifier: JwtVerifier = {
    async verifyComplete<T extends object>(token: string) {
      return verifyNow<T>(token);
    },
    // One async frame per token (not one per step): verifying is on every authenticated request.
    async verify<T extends object>(token: string) {
      const verified = verifyNow<T>(token);
      return (verified instanceof Promise ? await verified : verified).payload;
    },
  };
  immediate.set(verifier, (token) => {
    const verified = verifyNow(token);
    return verified instanceof Promise ? verified.then(payloadOf) : verified.payload;
  });
  return verifier;
}

function payloadOf(verified: VerifiedJwt<object>): JwtPayload {
  return verified.payload;
}

/** The synchronous-when-possible verification of each verifier createJwtVerifier made. */
const immediate = new WeakMap<JwtVerifier, (token: string) => JwtPayload | Promise<JwtPayload>>();

/**
 * The claims of `token`, without a promise when `verifier` can give them at once (one made by
 * createJwtVerifier from a key or key set; a JWKS URL or a verifier of your own answers with
 * `verify`'s promise). Throws or rejects with JwtError exactly as `verify` rejects. For layers
 * that verify on every request and can then answer without a promise.
 */
export function verifyJwtClaims(verifier: JwtVerifier, token: string): JwtPayload | Promise<JwtPayload> {
  const now = immediate.get(verifier);
  return now === undefined ? verifier.verify(token) : now(token);
}
