// Turning key input (secret, PEM/DER, KeyObject, JWK) into a checked `JwsKey`, and deciding
// whether a key may be used with an algorithm. Keys are classified structurally (what
// node:crypto parses them as: KeyObject.type and asymmetricKeyType), never by looking at text,
// so a PEM public key can never end up as an HMAC secret.
import { createPrivateKey, createPublicKey, createSecretKey, KeyObject } from "node:crypto";
import type { JsonWebKey } from "node:crypto";
import { base64urlDecode, isBase64url } from "./jws-base64url.js";
import { isJwsAlgorithm, jwsAlgorithmSpec } from "./jws-algorithms.js";
import type { JwsAlgorithm, JwsKeyFamily } from "./jws-algorithms.js";
import { hasRocaFingerprint } from "./jwk-roca.js";
import { JwtError } from "./jwt-error.js";

/** A JSON Web Key as parsed JSON; members are checked on import. */
export interface JsonWebKeyInput {
  readonly kty: string;
  readonly [member: string]: unknown;
}

/** Anything a key can be given as. Strings and bytes are PEM/DER keys or HMAC secrets. */
export type JwtKeyInput = string | Uint8Array | KeyObject | JsonWebKeyInput;

export type JwsKeyPurpose = "verify" | "sign";

/** A key that passed the structural checks. Immutable; safe to share. */
export interface JwsKey {
  /** "rsa-any": a plain RSA key (RS* and PS*); "rsa-pss": an RSASSA-PSS-only key (PS*). */
  readonly family: JwsKeyFamily | "rsa-any";
  /** "secret" for HMAC, "public" for verification, "private" for signing. */
  readonly type: "secret" | "public" | "private";
  readonly keyObject: KeyObject;
  readonly kid: string | undefined;
  /** The JWK `alg`, when the key was pinned to one algorithm. */
  readonly alg: JwsAlgorithm | undefined;
  /** OpenSSL curve name for EC keys. */
  readonly curve: string | undefined;
  /** RSA modulus bits, or HMAC secret bytes. */
  readonly size: number;
}

export interface JwsKeyMeta {
  readonly kid?: string | undefined;
  readonly alg?: JwsAlgorithm | undefined;
}

const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 16384; // bounds the verification work an attacker-chosen JWKS can cause
const MAX_SECRET_BYTES = 1024;

function refuse(message: string): never {
  throw new JwtError("invalid_key", message);
}

/** Check a KeyObject against our key policy and describe it. */
export function jwsKeyFromKeyObject(keyObject: KeyObject, purpose: JwsKeyPurpose, meta: JwsKeyMeta = {}): JwsKey {
  let key = keyObject;
  if (key.type === "secret") {
    const size = key.symmetricKeySize ?? 0;
    if (size === 0) refuse("HMAC secret is empty");
    if (size > MAX_SECRET_BYTES) refuse(`HMAC secret is longer than ${MAX_SECRET_BYTES} bytes`);
    return { family: "hmac", type: "secret", keyObject: key, kid: meta.kid, alg: meta.alg, curve: undefined, size };
  }
  if (purpose === "sign" && key.type !== "private") refuse("signing needs a private key or an HMAC secret, got a public key");
  // Verification only ever needs the public half.
  if (purpose === "verify" && key.type === "private") key = createPublicKey(key);
  const type = purpose === "sign" ? "private" : "public";
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case "rsa":
    case "rsa-pss": {
      const bits = details.modulusLength ?? 0;
      if (bits < MIN_RSA_BITS) refuse(`RSA key is ${bits} bits; at least ${MIN_RSA_BITS} are required`);
      if (bits > MAX_RSA_BITS) refuse(`RSA key is ${bits} bits; at most ${MAX_RSA_BITS} are accepted`);
      const e = details.publicExponent ?? 0n;
      if (e < 3n || e % 2n === 0n) refuse("RSA public exponent must be odd and at least 3");
      const n = rsaModulus(key);
      if (n !== undefined && hasRocaFingerprint(n)) refuse("RSA key has the ROCA fingerprint (CVE-2017-15361)");
      const family = key.asymmetricKeyType === "rsa-pss" ? "rsa-pss" : "rsa-any";
      return { family, type, keyObject: key, kid: meta.kid, alg: meta.alg, curve: undefined, size: bits };
    }
    case "ec": {
      const curve = details.namedCurve;
      if (curve !== "prime256v1" && curve !== "secp384r1" && curve !== "secp521r1") {
        refuse(`EC curve ${curve ?? "(unknown)"} is not supported; use P-256, P-384 or P-521`);
      }
      return { family: "ec", type, keyObject: key, kid: meta.kid, alg: meta.alg, curve, size: 0 };
    }
    case "ed25519":
    case "ed448":
      return { family: "okp", type, keyObject: key, kid: meta.kid, alg: meta.alg, curve: key.asymmetricKeyType, size: 0 };
    default:
      return refuse(`key type ${key.asymmetricKeyType ?? "(unknown)"} cannot sign JWS`);
  }
}

function rsaModulus(key: KeyObject): bigint | undefined {
  try {
    const n = key.export({ format: "jwk" }).n;
    return typeof n === "string" ? BigInt("0x" + Buffer.from(n, "base64url").toString("hex")) : undefined;
  } catch {
    return undefined; // rsa-pss keys cannot be exported as JWK; the fingerprint is skipped for them
  }
}

/**
 * Why `key` cannot be used with `alg`, or undefined when it can. The family must match
 * (an asymmetric key is never an HMAC secret), EC curves must match the algorithm, HMAC
 * secrets must be at least as long as the hash, and a JWK `alg` pins the key to one algorithm.
 */
export function keyMismatchReason(key: JwsKey, alg: JwsAlgorithm): string | undefined {
  const spec = jwsAlgorithmSpec(alg);
  if (key.alg !== undefined && key.alg !== alg) return `key is restricted to ${key.alg}`;
  switch (spec.family) {
    case "hmac":
      if (key.family !== "hmac") return `${alg} needs an HMAC secret, not an asymmetric key`;
      if (key.size < spec.hashBytes) return `HMAC secret is ${key.size} bytes; ${alg} needs at least ${spec.hashBytes}`;
      return undefined;
    case "rsa":
      return key.family === "rsa-any" ? undefined : `${alg} needs an RSA key`;
    case "rsa-pss":
      return key.family === "rsa-any" || key.family === "rsa-pss" ? undefined : `${alg} needs an RSA key`;
    case "ec":
      if (key.family !== "ec") return `${alg} needs an EC key`;
      return key.curve === spec.curve!.openssl ? undefined : `${alg} needs a ${spec.curve!.jose} key`;
    case "okp":
      return key.family === "okp" ? undefined : `${alg} needs an Ed25519 or Ed448 key`;
  }
}

export function keyFitsAlgorithm(key: JwsKey, alg: JwsAlgorithm): boolean {
  return keyMismatchReason(key, alg) === undefined;
}

/** Parse a PEM/DER key if the input is one; undefined when it is not an asymmetric key. */
function parseAsymmetric(input: string | Buffer, purpose: JwsKeyPurpose): KeyObject | undefined {
  const attempts: Array<() => KeyObject> =
    typeof input === "string"
      ? [() => createPrivateKey(input), () => createPublicKey(input)]
      : [
          () => createPrivateKey(input),
          () => createPublicKey(input),
          () => createPrivateKey({ key: input, format: "der", type: "pkcs8" }),
          () => createPrivateKey({ key: input, format: "der", type: "pkcs1" }),
          () => createPrivateKey({ key: input, format: "der", type: "sec1" }),
          () => createPublicKey({ key: input, format: "der", type: "spki" }),
          () => createPublicKey({ key: input, format: "der", type: "pkcs1" }),
        ];
  for (const attempt of attempts) {
    try {
      const key = attempt();
      return purpose === "verify" && key.type === "private" ? createPublicKey(key) : key;
    } catch {
      // not this encoding; try the next
    }
  }
  return undefined;
}

/**
 * Classify a string/bytes key: an asymmetric key if node:crypto parses it as one (PEM, or DER
 * for bytes), otherwise an HMAC secret. Text that carries a PEM armour line but does not parse
 * is refused rather than treated as a secret (a broken public key must not become a secret).
 */
export function importKeyMaterial(input: string | Uint8Array, purpose: JwsKeyPurpose, meta: JwsKeyMeta = {}): JwsKey {
  const material = typeof input === "string" ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const asymmetric = parseAsymmetric(material, purpose);
  if (asymmetric) return jwsKeyFromKeyObject(asymmetric, purpose, meta);
  const text = typeof material === "string" ? material : material.toString("latin1");
  if (text.includes("-----BEGIN")) refuse("key text looks like PEM but does not parse as a key");
  const bytes = typeof material === "string" ? Buffer.from(material, "utf8") : material;
  if (bytes.byteLength === 0) refuse("HMAC secret is empty");
  return jwsKeyFromKeyObject(createSecretKey(bytes), purpose, meta);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof KeyObject) &&
    !ArrayBuffer.isView(value);
}

function b64Member(jwk: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = jwk[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || !isBase64url(value)) refuse(`JWK member "${name}" must be a base64url string`);
  return value;
}

const RSA_PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi"] as const;

/** Import one JWK (RFC 7517/7518/8037) for signing or verification, with its use/alg checks. */
export function importJwk(input: unknown, purpose: JwsKeyPurpose): JwsKey {
  if (!isPlainObject(input)) refuse("JWK must be a JSON object");
  const jwk = input;
  const kty = jwk["kty"];
  if (typeof kty !== "string") refuse('JWK member "kty" is required');
  const kid = jwk["kid"];
  if (kid !== undefined && typeof kid !== "string") refuse('JWK member "kid" must be a string');
  const use = jwk["use"];
  if (use !== undefined && use !== "sig") refuse(`JWK "use" is ${JSON.stringify(use)}; only "sig" keys can sign or verify`);
  const keyOps = jwk["key_ops"];
  if (keyOps !== undefined) {
    if (!Array.isArray(keyOps) || !keyOps.every((op) => typeof op === "string")) refuse('JWK "key_ops" must be an array of strings');
    if (!keyOps.includes(purpose)) refuse(`JWK "key_ops" does not allow "${purpose}"`);
  }
  const alg = jwk["alg"];
  if (alg !== undefined && !isJwsAlgorithm(alg)) refuse(`JWK "alg" ${JSON.stringify(alg)} is not a supported JWS algorithm`);
  const meta: JwsKeyMeta = { kid, alg };

  if (kty === "oct") {
    const k = b64Member(jwk, "k", true)!;
    const secret = base64urlDecode(k)!;
    if (secret.byteLength === 0) refuse("HMAC secret is empty");
    return jwsKeyFromKeyObject(createSecretKey(secret), purpose, meta);
  }

  // Copy only the members node:crypto needs, after checking their encoding.
  const clean: Record<string, string> = { kty };
  let isPrivate = false;
  if (kty === "RSA") {
    clean["n"] = b64Member(jwk, "n", true)!;
    clean["e"] = b64Member(jwk, "e", true)!;
    for (const name of RSA_PRIVATE_MEMBERS) {
      const value = b64Member(jwk, name, false);
      if (value !== undefined) clean[name] = value;
    }
    isPrivate = clean["d"] !== undefined;
  } else if (kty === "EC" || kty === "OKP") {
    const crv = jwk["crv"];
    if (typeof crv !== "string") refuse('JWK member "crv" is required');
    clean["crv"] = crv;
    clean["x"] = b64Member(jwk, "x", true)!;
    if (kty === "EC") {
      clean["y"] = b64Member(jwk, "y", true)!;
      const width = crv === "P-256" ? 32 : crv === "P-384" ? 48 : crv === "P-521" ? 66 : refuse(`EC curve ${crv} is not supported`);
      // RFC 7518 §6.2.1.2: coordinates are full-width octet strings.
      if (base64urlDecode(clean["x"])!.byteLength !== width || base64urlDecode(clean["y"])!.byteLength !== width) {
        refuse(`EC coordinates do not have the ${width}-byte width of ${crv}`);
      }
    } else if (crv !== "Ed25519" && crv !== "Ed448") {
      refuse(`OKP curve ${crv} cannot sign JWS`);
    }
    const d = b64Member(jwk, "d", false);
    if (d !== undefined) clean["d"] = d;
    isPrivate = d !== undefined;
  } else {
    refuse(`JWK "kty" ${JSON.stringify(kty)} is not supported`);
  }
  if (purpose === "sign" && !isPrivate) refuse("signing needs a private JWK (with \"d\")");

  let keyObject: KeyObject;
  try {
    keyObject = isPrivate && purpose === "sign"
      ? createPrivateKey({ key: clean as JsonWebKey, format: "jwk" })
      : createPublicKey({ key: clean as JsonWebKey, format: "jwk" });
  } catch (cause) {
    throw new JwtError("invalid_key", `JWK does not describe a valid ${kty} key (${(cause as Error).message})`, { cause });
  }
  const key = jwsKeyFromKeyObject(keyObject, purpose, meta);
  if (alg !== undefined) {
    const reason = keyMismatchReason(key, alg);
    if (reason !== undefined) refuse(`JWK "alg" ${alg} does not fit the key: ${reason}`);
  }
  return key;
}

/** Import any supported key input. */
export function importJwsKey(input: JwtKeyInput, purpose: JwsKeyPurpose, meta: JwsKeyMeta = {}): JwsKey {
  if (input instanceof KeyObject) return jwsKeyFromKeyObject(input, purpose, meta);
  if (typeof input === "string" || input instanceof Uint8Array) return importKeyMaterial(input, purpose, meta);
  if (isPlainObject(input)) {
    const key = importJwk(input, purpose);
    return meta.kid !== undefined && key.kid === undefined ? { ...key, kid: meta.kid } : key;
  }
  return refuse("key must be a string, Buffer, KeyObject or JWK object");
}
