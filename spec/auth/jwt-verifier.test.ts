// JWT sign/verify round trips for every algorithm, and the security invariants of the
// verifier: the allow-list decides, `none` never passes, keys never cross families.
import { mock, test } from "node:test";
import cryptoModule from "node:crypto";
import { syncBuiltinESMExports } from "node:module";
import assert from "node:assert/strict";
import { createHmac, createPublicKey, generateKeyPairSync, verify as nodeVerify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { createJwtSigner, createJwtVerifier, JWS_ALGORITHMS, JwtError, signJwt } from "../../lib/jose/index.js";
import type { JwsAlgorithm, JwtKeyInput } from "../../lib/jose/index.js";

const NOW = 1_700_000_000_000;
const now = (): number => NOW;
const SECRET64 = Buffer.alloc(64, 7); // long enough for HS512

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const rsa2 = generateKeyPairSync("rsa", { modulusLength: 2048 });
const p256 = generateKeyPairSync("ec", { namedCurve: "P-256" });
const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
const p521 = generateKeyPairSync("ec", { namedCurve: "P-521" });
const ed = generateKeyPairSync("ed25519");

function keysFor(alg: JwsAlgorithm): { signKey: JwtKeyInput; verifyKey: JwtKeyInput } {
  if (alg.startsWith("HS")) return { signKey: SECRET64, verifyKey: SECRET64 };
  if (alg.startsWith("RS") || alg.startsWith("PS")) return { signKey: rsa.privateKey, verifyKey: rsa.publicKey };
  if (alg === "ES256") return { signKey: p256.privateKey, verifyKey: p256.publicKey };
  if (alg === "ES384") return { signKey: p384.privateKey, verifyKey: p384.publicKey };
  if (alg === "ES512") return { signKey: p521.privateKey, verifyKey: p521.publicKey };
  return { signKey: ed.privateKey, verifyKey: ed.publicKey };
}

async function codeOf(promise: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof promise === "function" ? promise() : promise);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof JwtError, `expected JwtError, got ${String(error)}`);
    return error.code;
  }
}

function b64(value: unknown): string {
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
}

/** Hand-made HS256-style token with an arbitrary header, MAC'ed with `secret` (any bytes). */
function forgeHmac(header: object, payload: object, secret: string | Buffer, hash = "sha256"): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(hash, secret).update(input).digest("base64url")}`;
}

test("every algorithm signs and verifies, with alg in the header and JOSE-sized signatures", async () => {
  assert.equal(JWS_ALGORITHMS.length, 13);
  const sigBytes: Partial<Record<JwsAlgorithm, number>> = { HS256: 32, HS384: 48, HS512: 64, ES256: 64, ES384: 96, ES512: 132, EdDSA: 64, RS256: 256, PS512: 256 };
  for (const alg of JWS_ALGORITHMS) {
    const { signKey, verifyKey } = keysFor(alg);
    const token = signJwt({ role: "admin" }, { algorithm: alg, key: signKey, subject: "alice", expiresIn: 60, now });
    const [h, , s] = token.split(".");
    assert.equal(JSON.parse(Buffer.from(h!, "base64url").toString()).alg, alg);
    const expected = sigBytes[alg];
    if (expected !== undefined) assert.equal(Buffer.from(s!, "base64url").length, expected, `${alg} signature size`);
    const verifier = createJwtVerifier({ algorithms: [alg], key: verifyKey, now });
    const claims = await verifier.verify<{ role: string }>(token);
    assert.equal(claims.role, "admin");
    assert.equal(claims.sub, "alice");
    assert.equal(claims.exp, NOW / 1000 + 60);
    // Tampering with the payload breaks every algorithm.
    const parts = token.split(".");
    const tampered = `${parts[0]}.${b64({ role: "root", sub: "alice", exp: NOW / 1000 + 60 })}.${parts[2]}`;
    assert.equal(await codeOf(verifier.verify(tampered)), "bad_signature", alg);
  }
});

test("ES signatures are raw r||s (IEEE P1363), not DER", async () => {
  for (const [alg, pair, size] of [["ES256", p256, 64], ["ES384", p384, 96], ["ES512", p521, 132]] as const) {
    const token = signJwt({}, { algorithm: alg, key: pair.privateKey, expiresIn: 60, now });
    const input = Buffer.from(token.slice(0, token.lastIndexOf(".")));
    const sig = Buffer.from(token.split(".")[2]!, "base64url");
    assert.equal(sig.length, size);
    const hash = `sha${alg.slice(2)}`;
    assert.equal(nodeVerify(hash, input, { key: pair.publicKey, dsaEncoding: "ieee-p1363" }, sig), true);
    let derOk = false;
    try {
      derOk = nodeVerify(hash, input, pair.publicKey, sig);
    } catch {
      derOk = false;
    }
    assert.equal(derOk, false, "the signature must not be DER");
  }
});

test("HMAC tags are compared with timingSafeEqual, after a length check", async () => {
  const calls: number[] = [];
  const original = cryptoModule.timingSafeEqual;
  const spy = mock.method(cryptoModule, "timingSafeEqual", (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    calls.push(a.byteLength);
    return original(a, b);
  });
  syncBuiltinESMExports();
  try {
    const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET64, now });
    const token = signJwt({}, { algorithm: "HS256", key: SECRET64, expiresIn: 60, now });
    await verifier.verify(token);
    assert.deepEqual(calls, [32]);
    const short = token.slice(0, token.lastIndexOf(".") + 1) + Buffer.alloc(16).toString("base64url");
    assert.equal(await codeOf(verifier.verify(short)), "bad_signature");
    assert.deepEqual(calls, [32], "a wrong-length tag is refused before any compare");
  } finally {
    spy.mock.restore();
    syncBuiltinESMExports();
  }
});

test("the verifier's allow-list decides, never the token header", async () => {
  const verifier = createJwtVerifier({ algorithms: ["RS256"], key: rsa.publicKey, now });
  // Same key, different (stronger) RSA algorithm the header asks for: still refused.
  const rs512 = signJwt({}, { algorithm: "RS512", key: rsa.privateKey, expiresIn: 60, now });
  assert.equal(await codeOf(verifier.verify(rs512)), "alg_not_allowed");
  const ps256 = signJwt({}, { algorithm: "PS256", key: rsa.privateKey, expiresIn: 60, now });
  assert.equal(await codeOf(verifier.verify(ps256)), "alg_not_allowed");
  // Case variants are not the same algorithm.
  const lower = forgeHmac({ alg: "rs256" }, { exp: NOW / 1000 + 60 }, "x");
  assert.equal(await codeOf(verifier.verify(lower)), "alg_not_allowed");
  // A header without alg, or with a non-string alg, is malformed.
  assert.equal(await codeOf(verifier.verify(forgeHmac({ typ: "JWT" }, {}, "x"))), "malformed");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: ["RS256"] }, {}, "x"))), "malformed");
});

test('alg "none" is always rejected, and cannot even be configured', async () => {
  const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${b64({ sub: "admin", exp: NOW / 1000 + 60 })}.`;
  const verifier = createJwtVerifier({ algorithms: [...JWS_ALGORITHMS.filter((a) => a.startsWith("HS"))], key: SECRET64, now });
  assert.equal(await codeOf(verifier.verify(unsigned)), "alg_not_allowed");
  assert.equal(await codeOf(verifier.verify(`${b64({ alg: "None" })}.${b64({})}.`)), "alg_not_allowed");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["none" as JwsAlgorithm], key: SECRET64 })), "invalid_config");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256", "none" as JwsAlgorithm], key: SECRET64 })), "invalid_config");
});

test("an RSA public key PEM is never usable as an HMAC secret (alg confusion)", async () => {
  const pem = rsa.publicKey.export({ type: "spki", format: "pem" }) as string;
  // The classic attack: HS256 token MAC'ed with the public key's PEM text.
  const forged = forgeHmac({ alg: "HS256" }, { sub: "admin", exp: NOW / 1000 + 60 }, pem);
  // A verifier for RS256 refuses the HS256 header...
  const rsVerifier = createJwtVerifier({ algorithms: ["RS256"], key: pem, now });
  assert.equal(await codeOf(rsVerifier.verify(forged)), "alg_not_allowed");
  // ...and listing HS256 next to a PEM key is refused at configuration time, whatever the form.
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: pem })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256", "HS256"], key: pem })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: Buffer.from(pem) })), "invalid_key");
  const der = rsa.publicKey.export({ type: "spki", format: "der" });
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: der })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: rsa.publicKey })), "invalid_key");
  const jwk = rsa.publicKey.export({ format: "jwk" }) as { kty: string };
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: jwk })), "invalid_key");
  // Broken PEM text is refused too, rather than silently becoming a secret.
  const broken = pem.replace(/[A-Za-z]{8}/, "!!!!!!!!");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: broken })), "invalid_key");
  // And the signer will not MAC with a public key either.
  assert.equal(await codeOf(() => signJwt({}, { algorithm: "HS256", key: pem })), "invalid_key");
});

test("EC and Ed25519 public keys are never usable as HMAC secrets either", async () => {
  for (const key of [p256.publicKey, ed.publicKey] as KeyObject[]) {
    const pem = key.export({ type: "spki", format: "pem" }) as string;
    assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: pem })), "invalid_key");
    assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key })), "invalid_key");
  }
});

test("key type must match the algorithm family and the EC curve", async () => {
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256"], key: p256.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256"], key: rsa.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256"], key: p384.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES384"], key: p521.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES512"], key: p256.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["EdDSA"], key: p256.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256"], key: SECRET64 })), "invalid_key");
  // ES256 token verified by a verifier that allows ES256 and ES384 with only a P-384 key: no key fits.
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256", "ES384"], key: p384.publicKey })), "invalid_key");
  // Signing side, same rules.
  assert.equal(await codeOf(() => signJwt({}, { algorithm: "ES256", key: p384.privateKey })), "invalid_key");
  assert.equal(await codeOf(() => signJwt({}, { algorithm: "RS256", key: p256.privateKey })), "invalid_key");
  assert.equal(await codeOf(() => signJwt({}, { algorithm: "RS256", key: rsa.publicKey })), "invalid_key");
});

test("JWK alg must equal the algorithm, and JWK use must be sig", async () => {
  const jwk = { ...(p256.publicKey.export({ format: "jwk" }) as { kty: string }), alg: "ES256", use: "sig" };
  const ok = signJwt({}, { algorithm: "ES256", key: p256.privateKey, expiresIn: 60, now });
  assert.equal((await createJwtVerifier({ algorithms: ["ES256"], key: jwk, now }).verify(ok)).exp, NOW / 1000 + 60);
  const rsJwk = { ...(rsa.publicKey.export({ format: "jwk" }) as { kty: string }), alg: "RS256" };
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["PS256"], key: rsJwk })), "invalid_key");
  // Two algorithms, key pinned to one of them: the other has no key.
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256", "PS256"], key: rsJwk })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256"], key: { ...jwk, use: "enc" } })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256"], key: { ...jwk, key_ops: ["encrypt"] } })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["ES256"], key: { ...jwk, alg: "ES521" } })), "invalid_key");
});

test("HMAC secrets shorter than the hash output are refused at configuration time", async () => {
  const cases: Array<[JwsAlgorithm, number]> = [["HS256", 32], ["HS384", 48], ["HS512", 64]];
  for (const [alg, bytes] of cases) {
    assert.equal(await codeOf(() => createJwtVerifier({ algorithms: [alg], key: Buffer.alloc(bytes - 1, 1) })), "invalid_key", alg);
    assert.equal(await codeOf(() => createJwtVerifier({ algorithms: [alg], key: "s".repeat(bytes - 1) })), "invalid_key", alg);
    assert.equal(await codeOf(() => createJwtVerifier({ algorithms: [alg], key: Buffer.alloc(bytes, 1) })), undefined, alg);
    assert.equal(await codeOf(() => signJwt({}, { algorithm: alg, key: Buffer.alloc(bytes - 1, 1) })), "invalid_key", alg);
  }
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: "" })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["HS256"], key: { kty: "oct", k: "" } })), "invalid_key");
});

test("RSA keys under 2048 bits are refused at configuration time", async () => {
  const small = generateKeyPairSync("rsa", { modulusLength: 1024 });
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256"], key: small.publicKey })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["PS256"], key: small.publicKey.export({ format: "jwk" }) as { kty: string } })), "invalid_key");
  assert.equal(await codeOf(() => signJwt({}, { algorithm: "RS256", key: small.privateKey })), "invalid_key");
});

test("unknown crit parameters and b64:false are rejected for JWTs", async () => {
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET64, now, requireExpiration: false });
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: ["exp"], exp: 1 }, {}, SECRET64))), "crit_unsupported");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: ["b64"], b64: false }, {}, SECRET64))), "crit_unsupported");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", b64: false }, {}, SECRET64))), "crit_unsupported");
  // Malformed crit: empty, not an array, names a registered or absent parameter.
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: [] }, {}, SECRET64))), "malformed");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: "x" }, {}, SECRET64))), "malformed");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: ["alg"] }, {}, SECRET64))), "malformed");
  assert.equal(await codeOf(verifier.verify(forgeHmac({ alg: "HS256", crit: ["zzz"] }, {}, SECRET64))), "malformed");
  // Sanity: the same construction without crit verifies, so the codes above come from crit.
  assert.deepEqual({ ...(await verifier.verify(forgeHmac({ alg: "HS256" }, { a: 1 }, SECRET64))) }, { a: 1 });
});

test("HMAC tags of the wrong length are refused without throwing anything but JwtError", async () => {
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET64, now });
  const token = signJwt({}, { algorithm: "HS256", key: SECRET64, expiresIn: 60, now });
  const [h, p, s] = token.split(".");
  const sig = Buffer.from(s!, "base64url");
  assert.equal(await codeOf(verifier.verify(`${h}.${p}.${sig.subarray(0, 31).toString("base64url")}`)), "bad_signature");
  assert.equal(await codeOf(verifier.verify(`${h}.${p}.${Buffer.concat([sig, Buffer.of(0)]).toString("base64url")}`)), "bad_signature");
  assert.equal(await codeOf(verifier.verify(`${h}.${p}.`)), "bad_signature");
  const flipped = Buffer.from(sig);
  flipped[31] = flipped[31]! ^ 1;
  assert.equal(await codeOf(verifier.verify(`${h}.${p}.${flipped.toString("base64url")}`)), "bad_signature");
});

test("keys are selected by kid; an unknown kid is key_not_found; embedded jwk headers are ignored", async () => {
  const jwkA = { ...(rsa.publicKey.export({ format: "jwk" }) as { kty: string }), kid: "a" };
  const jwkB = { ...(rsa2.publicKey.export({ format: "jwk" }) as { kty: string }), kid: "b" };
  const verifier = createJwtVerifier({ algorithms: ["RS256"], keys: { keys: [jwkA, jwkB] }, now });
  const byB = signJwt({ n: 2 }, { algorithm: "RS256", key: rsa2.privateKey, kid: "b", expiresIn: 60, now });
  assert.equal((await verifier.verifyComplete<{ n: number }>(byB)).kid, "b");
  const wrongKid = signJwt({}, { algorithm: "RS256", key: rsa2.privateKey, kid: "a", expiresIn: 60, now });
  assert.equal(await codeOf(verifier.verify(wrongKid)), "bad_signature");
  const unknownKid = signJwt({}, { algorithm: "RS256", key: rsa2.privateKey, kid: "zz", expiresIn: 60, now });
  assert.equal(await codeOf(verifier.verify(unknownKid)), "key_not_found");
  // No kid: every fitting key is tried.
  const noKid = signJwt({}, { algorithm: "RS256", key: rsa2.privateKey, expiresIn: 60, now });
  assert.equal((await verifier.verifyComplete(noKid)).kid, "b");
  // An attacker-supplied key in the header changes nothing.
  const attacker = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const withJwk = signJwt({}, { algorithm: "RS256", key: attacker.privateKey, expiresIn: 60, now });
  const [, p, s] = withJwk.split(".");
  const header = b64({ alg: "RS256", kid: "a", jwk: createPublicKey(attacker.privateKey).export({ format: "jwk" }) });
  assert.equal(await codeOf(verifier.verify(`${header}.${p}.${s}`)), "bad_signature");
});

test("duplicate kids and HMAC/asymmetric mixes are refused in configured key sets", async () => {
  const jwkA = { ...(rsa.publicKey.export({ format: "jwk" }) as { kty: string }), kid: "same" };
  const jwkB = { ...(rsa2.publicKey.export({ format: "jwk" }) as { kty: string }), kid: "same" };
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256"], keys: { keys: [jwkA, jwkB] } })), "invalid_key");
  const oct = { kty: "oct", k: SECRET64.toString("base64url"), kid: "h" };
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256", "HS256"], keys: { keys: [{ ...jwkA, kid: "r" }, oct] } })), "invalid_key");
  assert.equal(await codeOf(() => createJwtVerifier({ algorithms: ["RS256", "HS256"], keys: [rsa.publicKey, SECRET64] })), "invalid_key");
});

test("signer: kid/typ headers, claims from options, and no double claims", async () => {
  const signer = createJwtSigner({ algorithm: "HS256", key: SECRET64, kid: "k1", issuer: "keel", audience: ["api"], expiresIn: 60, notBefore: 0, now });
  const token = signer.sign({ role: "user" }, { subject: "bob", jwtId: "j1" });
  const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as Record<string, unknown>;
  assert.deepEqual(header, { alg: "HS256", typ: "JWT", kid: "k1" });
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET64, issuer: "keel", audience: "api", subject: "bob", now });
  const claims = await verifier.verify(token);
  assert.deepEqual({ ...claims }, { role: "user", iat: NOW / 1000, exp: NOW / 1000 + 60, nbf: NOW / 1000, iss: "keel", aud: ["api"], sub: "bob", jti: "j1" });
  assert.equal(await codeOf(() => signer.sign({ exp: 5 })), "invalid_config");
});
