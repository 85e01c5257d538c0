// JOSE header checks shared by the compact and JSON serializations: `alg` against the
// verifier's allow-list (never the other way round), `kid` type, and `crit` (RFC 7515
// §4.1.11) with the one extension we may understand, `b64` (RFC 7797).
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { JwtError } from "./jwt-error.js";

export interface JwsHeader {
  readonly alg: JwsAlgorithm;
  readonly kid?: string;
  readonly typ?: string;
  readonly cty?: string;
  readonly crit?: readonly string[];
  readonly b64?: boolean;
  readonly [member: string]: unknown;
}

/** Header parameters defined by RFC 7515/7518 that `crit` must not list. */
const REGISTERED = new Set(["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit", "enc", "zip"]);
const MAX_CRIT = 16;

export interface HeaderCheck {
  readonly alg: JwsAlgorithm;
  readonly kid: string | undefined;
  /** false only for an RFC 7797 unencoded payload. */
  readonly b64: boolean;
}

/**
 * Validate a (merged) JOSE header. `protectedHeader` is the integrity-protected part: `crit`
 * and `b64` must live there. `allowUnencoded` says whether `b64:false` is understood.
 */
export function checkJwsHeader(
  header: Record<string, unknown>,
  protectedHeader: Record<string, unknown>,
  algorithms: ReadonlySet<string>,
  allowUnencoded: boolean,
): HeaderCheck {
  const alg = header["alg"];
  if (typeof alg !== "string") throw new JwtError("malformed", 'header "alg" must be a string');
  // The allow-list decides. "none" is never in it (createJwsVerifier refuses to list it).
  if (alg === "none" || !algorithms.has(alg)) throw new JwtError("alg_not_allowed", `algorithm ${JSON.stringify(alg.slice(0, 20))} is not allowed`);
  const kid = header["kid"];
  if (kid !== undefined && typeof kid !== "string") throw new JwtError("malformed", 'header "kid" must be a string');

  const crit = header["crit"];
  let b64Critical = false;
  if (crit !== undefined) {
    if (protectedHeader["crit"] === undefined) throw new JwtError("malformed", '"crit" must be in the protected header');
    if (!Array.isArray(crit) || crit.length === 0 || crit.length > MAX_CRIT) {
      throw new JwtError("malformed", '"crit" must be a non-empty array of header names');
    }
    const names = new Set<string>();
    for (const name of crit) {
      if (typeof name !== "string" || names.has(name)) throw new JwtError("malformed", '"crit" must list distinct strings');
      names.add(name);
      if (REGISTERED.has(name)) throw new JwtError("malformed", `"crit" must not list the registered parameter ${name}`);
      if (protectedHeader[name] === undefined) throw new JwtError("malformed", `"crit" lists ${name}, which the protected header lacks`);
      if (name === "b64" && allowUnencoded) {
        b64Critical = true;
        continue;
      }
      throw new JwtError("crit_unsupported", `critical header parameter ${JSON.stringify(name.slice(0, 40))} is not understood`);
    }
  }

  const b64 = header["b64"];
  if (b64 === undefined) return { alg: alg as JwsAlgorithm, kid, b64: true };
  if (typeof b64 !== "boolean") throw new JwtError("malformed", 'header "b64" must be a boolean');
  if (!allowUnencoded) {
    if (b64 === false) throw new JwtError("crit_unsupported", "unencoded payloads (b64:false) are not accepted here");
    return { alg: alg as JwsAlgorithm, kid, b64: true };
  }
  // RFC 7797 §6: b64 must be protected and listed in crit, or the header is ambiguous.
  if (protectedHeader["b64"] === undefined || !b64Critical) {
    throw new JwtError("malformed", 'header "b64" must be protected and listed in "crit"');
  }
  return { alg: alg as JwsAlgorithm, kid, b64 };
}
