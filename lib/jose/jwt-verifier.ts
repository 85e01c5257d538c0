// JWT verification: a compact JWS whose payload is a JSON claims set, checked against the
// verifier's algorithm allow-list, keys and claim rules. `b64:false` and unknown `crit`
// parameters are refused for JWTs.
import { DEFAULT_MAX_TOKEN_LENGTH, parseCompactJws } from "./jws-compact.js";
import type { JwsHeader } from "./jws-header.js";
import { compileKeySource, verifyParsedJws } from "./jws-verifier.js";
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

  async function verifyComplete<T extends object>(token: string): Promise<VerifiedJwt<T>> {
    const parsed = parseCompactJws(token, parseOptions);
    if (expectedTyp !== undefined) {
      const typ = parsed.header.typ;
      if (typeof typ !== "string" || normalizeTyp(typ) !== expectedTyp) throw new JwtError("typ_mismatch", "unexpected token type");
    }
    const key = await verifyParsedJws(parsed, source);
    // The payload is only parsed once the signature proved who wrote it.
    const payload = parseJoseObject(parsed.payload, "claims");
    checkClaims(payload, rules, now() / 1000);
    return { header: parsed.header, payload: payload as JwtPayload & T, kid: key.kid };
  }

  return {
    verifyComplete,
    async verify<T extends object>(token: string) {
      return (await verifyComplete<T>(token)).payload;
    },
  };
}
