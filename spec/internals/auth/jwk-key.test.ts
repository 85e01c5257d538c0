// Key import and policy beyond the verifier tests: RFC 7517 JWK Sets, RFC 7638 thumbprints,
// weak RSA keys (exponent, ROCA), EC point/width checks, and timingSafeEqualString.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateKeyPairSync } from "node:crypto";
import { importJwk, importJwsKey, jwkThumbprint, JwtError, parseJwkSet, signJws, timingSafeEqualString, createJwsVerifier } from "../../../lib/jose/index.js";
import { hasRocaFingerprint } from "../../../lib/jose/jwk-roca.js";

const repoRoot = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const jwsDir = join(process.env["KEEL_CONFORMANCE_DIR"] ?? resolve(repoRoot, "../shared/conformance"), "jws");
const haveData = existsSync(join(jwsDir, "jwk-rfc7517-rfc7638"));
const skip = haveData ? false : `JWK conformance files not found under ${jwsDir}`;
const read = (path: string): Record<string, unknown> => JSON.parse(readFileSync(join(jwsDir, path), "utf8")) as Record<string, unknown>;

const invalidKey = (e: unknown): boolean => e instanceof JwtError && e.code === "invalid_key";

test("RFC 7638 §3.1 thumbprint", { skip }, () => {
  const jwk = read("jwk-rfc7517-rfc7638/rfc7638_3.1.jwk");
  const expected = readFileSync(join(jwsDir, "jwk-rfc7517-rfc7638/rfc7638_3.1.thp"), "utf8").trim();
  assert.equal(jwkThumbprint(jwk), expected);
  // Member order and extra members do not change it.
  assert.equal(jwkThumbprint({ kid: "x", ...Object.fromEntries(Object.entries(jwk).reverse()) }), expected);
});

test("RFC 7517 A.1/A.2 sets: the encryption key is ignored, the RS256 key is usable", { skip }, () => {
  for (const file of ["rfc7517_A.1.jwkset", "rfc7517_A.2.jwkset"]) {
    const parsed = parseJwkSet(read(`jwk-rfc7517-rfc7638/${file}`), { mode: "strict", allowSecrets: true });
    assert.deepEqual(parsed.keys.map((k) => [k.kid, k.alg, k.type, k.size]), [["2011-04-29", "RS256", "public", 2048]], file);
    assert.deepEqual(parsed.skipped.map((s) => s.kid), ["1"]);
  }
  const rsaPrivate = (read("jwk-rfc7517-rfc7638/rfc7517_A.2.jwkset")["keys"] as unknown[])[1];
  const signer = importJwk(rsaPrivate, "sign");
  assert.equal(signer.type, "private");
  const token = signJws("hi", { algorithm: "RS256", key: rsaPrivate as { kty: string } });
  return createJwsVerifier({ algorithms: ["RS256"], keys: read("jwk-rfc7517-rfc7638/rfc7517_A.1.jwkset") as { keys: unknown[] } })
    .verify(token)
    .then((r) => assert.equal(r.payload.toString(), "hi"));
});

test("RFC 7517 A.3 symmetric set: the key-wrap key is ignored; B: RSA key with x5c imports", { skip }, () => {
  const parsed = parseJwkSet(read("jwk-rfc7517-rfc7638/rfc7517_A.3.jwkset"), { mode: "strict", allowSecrets: true });
  assert.deepEqual(parsed.keys.map((k) => [k.family, k.kid, k.size]), [["hmac", "HMACkeyusedinJWSspecAppendixA.1example", 64]]);
  assert.equal(parsed.skipped.length, 1);
  assert.equal(parseJwkSet(read("jwk-rfc7517-rfc7638/rfc7517_A.3.jwkset"), { mode: "lenient", allowSecrets: false }).keys.length, 0);
  assert.equal(importJwk(read("jwk-rfc7517-rfc7638/rfc7517_B.jwk"), "verify").kid, "1b94c");
});

test("ROCA-fingerprinted RSA keys are refused; ordinary keys are not flagged", { skip }, () => {
  const group = (read("wycheproof/json_web_key_test.json")["testGroups"] as Array<Record<string, unknown>>).find((g) => g["comment"] === "jws_rsa_roca_key")!;
  const roca = ((group["public"] as Record<string, unknown>)["keys"] as unknown[])[0];
  assert.throws(() => importJwk(roca, "verify"), (e: unknown) => invalidKey(e) && /ROCA/.test((e as Error).message));
  for (let i = 0; i < 5; i++) {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const n = BigInt("0x" + Buffer.from(publicKey.export({ format: "jwk" }).n!, "base64url").toString("hex"));
    assert.equal(hasRocaFingerprint(n), false);
  }
});

test("RSA exponent 1 (or even) is refused", () => {
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ format: "jwk" });
  assert.equal(importJwk(jwk, "verify").size, 2048);
  assert.throws(() => importJwk({ ...jwk, e: "AQ" }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, e: "AQAC" }, "verify"), invalidKey);
});

test("EC JWKs: point must be on the curve, coordinates full width, curve supported", () => {
  const jwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" }) as Record<string, string>;
  assert.equal(importJwk(jwk, "verify").curve, "prime256v1");
  const y = Buffer.from(jwk["y"]!, "base64url");
  y[31] = y[31]! ^ 1;
  assert.throws(() => importJwk({ ...jwk, y: y.toString("base64url") }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, crv: "P-384" }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, crv: "secp256k1" }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, x: Buffer.from(jwk["x"]!, "base64url").subarray(1).toString("base64url") }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, x: `${jwk["x"]}=` }, "verify"), invalidKey);
  assert.throws(() => importJwk({ ...jwk, kty: "RSA" }, "verify"), invalidKey);
});

test("signing needs private material; verification keys are reduced to public ones", () => {
  const pair = generateKeyPairSync("ed25519");
  assert.throws(() => importJwsKey(pair.publicKey, "sign"), invalidKey);
  assert.throws(() => importJwk(pair.publicKey.export({ format: "jwk" }), "sign"), invalidKey);
  assert.equal(importJwsKey(pair.privateKey, "verify").type, "public");
  const pem = pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  assert.equal(importJwsKey(pem, "verify").keyObject.type, "public");
  assert.equal(importJwsKey(pem, "sign").keyObject.type, "private");
  assert.throws(() => importJwsKey(42 as unknown as string, "verify"), invalidKey);
  assert.throws(() => importJwk({ kty: "oct", k: "a+b/" }, "verify"), invalidKey);
});

test("timingSafeEqualString", () => {
  assert.equal(timingSafeEqualString("s3cret-token", "s3cret-token"), true);
  assert.equal(timingSafeEqualString("s3cret-token", "s3cret-tokeN"), false);
  assert.equal(timingSafeEqualString("s3cret-token", "s3cret-token-longer"), false);
  assert.equal(timingSafeEqualString("", ""), true);
  assert.equal(timingSafeEqualString("", "x"), false);
  assert.equal(timingSafeEqualString("é", "e\u0301"), false); // no normalisation: bytes decide
  assert.equal(timingSafeEqualString("x".repeat(10_000), "x".repeat(10_000)), true);
  assert.equal(timingSafeEqualString(undefined as unknown as string, "x"), false);
  assert.equal(timingSafeEqualString(undefined as unknown as string, undefined as unknown as string), false);
});
