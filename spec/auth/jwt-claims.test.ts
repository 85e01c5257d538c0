// Registered-claim checks: exp/nbf/iat with clock tolerance, iss/aud/sub, required claims,
// maxAge, NumericDate types, and the typed-claims generic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createJwtVerifier, JwtError } from "../../lib/jose/index.js";
import type { JwtVerifierOptions } from "../../lib/jose/index.js";

const SECRET = Buffer.alloc(32, 9);
const T = 1_700_000_000; // seconds
let clockMs = T * 1000;
const now = (): number => clockMs;

function token(payload: Record<string, unknown>): string {
  const input = `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${input}.${createHmac("sha256", SECRET).update(input).digest("base64url")}`;
}

async function code(payload: Record<string, unknown>, options: Partial<JwtVerifierOptions> = {}): Promise<string | undefined> {
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now, ...options });
  try {
    await verifier.verify(token(payload));
    return undefined;
  } catch (error) {
    assert.ok(error instanceof JwtError);
    return error.code;
  }
}

test("exp: rejected at and after expiry, accepted before; leeway extends it", async () => {
  clockMs = T * 1000;
  assert.equal(await code({ exp: T + 1 }), undefined);
  assert.equal(await code({ exp: T }), "expired");
  assert.equal(await code({ exp: T - 1 }), "expired");
  assert.equal(await code({ exp: T - 5 }, { clockTolerance: 10 }), undefined);
  assert.equal(await code({ exp: T - 10 }, { clockTolerance: 10 }), "expired");
  clockMs = T * 1000 + 999; // fractional seconds count
  assert.equal(await code({ exp: T + 1 }), undefined);
  clockMs = T * 1000;
});

test("exp is required by default; requireExpiration:false opts out", async () => {
  assert.equal(await code({}), "claim_missing");
  assert.equal(await code({}, { requireExpiration: false }), undefined);
});

test("nbf: rejected before, accepted from nbf on; leeway applies", async () => {
  assert.equal(await code({ exp: T + 60, nbf: T + 1 }), "not_before");
  assert.equal(await code({ exp: T + 60, nbf: T }), undefined);
  assert.equal(await code({ exp: T + 60, nbf: T + 5 }, { clockTolerance: 5 }), undefined);
  assert.equal(await code({ exp: T + 60, nbf: T + 6 }, { clockTolerance: 5 }), "not_before");
});

test("iat: not in the future beyond the leeway", async () => {
  assert.equal(await code({ exp: T + 60, iat: T }), undefined);
  assert.equal(await code({ exp: T + 60, iat: T + 1 }), "issued_in_future");
  assert.equal(await code({ exp: T + 60, iat: T + 3 }, { clockTolerance: 3 }), undefined);
});

test("maxAge is measured from iat, which it makes required", async () => {
  assert.equal(await code({ exp: T + 60, iat: T - 100 }, { maxAge: 100 }), undefined);
  assert.equal(await code({ exp: T + 60, iat: T - 101 }, { maxAge: 100 }), "too_old");
  assert.equal(await code({ exp: T + 60, iat: T - 105 }, { maxAge: 100, clockTolerance: 5 }), undefined);
  assert.equal(await code({ exp: T + 60 }, { maxAge: 100 }), "claim_missing");
});

test("numeric dates must be numbers", async () => {
  assert.equal(await code({ exp: String(T + 60) }), "claim_invalid");
  assert.equal(await code({ exp: T + 60, nbf: "0" }), "claim_invalid");
  assert.equal(await code({ exp: T + 60, iat: null }), "claim_invalid");
  assert.equal(await code({ exp: true }), "claim_invalid");
});

test("iss: exact match against one or several accepted issuers", async () => {
  assert.equal(await code({ exp: T + 60, iss: "https://a" }, { issuer: "https://a" }), undefined);
  assert.equal(await code({ exp: T + 60, iss: "https://b" }, { issuer: ["https://a", "https://b"] }), undefined);
  assert.equal(await code({ exp: T + 60, iss: "https://A" }, { issuer: "https://a" }), "claim_mismatch");
  assert.equal(await code({ exp: T + 60 }, { issuer: "https://a" }), "claim_missing");
  assert.equal(await code({ exp: T + 60, iss: 5 }, { issuer: "https://a" }), "claim_invalid");
});

test("aud: string or array, any match", async () => {
  assert.equal(await code({ exp: T + 60, aud: "api" }, { audience: "api" }), undefined);
  assert.equal(await code({ exp: T + 60, aud: ["web", "api"] }, { audience: "api" }), undefined);
  assert.equal(await code({ exp: T + 60, aud: ["web"] }, { audience: ["api", "admin"] }), "claim_mismatch");
  assert.equal(await code({ exp: T + 60, aud: [] }, { audience: "api" }), "claim_mismatch");
  assert.equal(await code({ exp: T + 60, aud: "apix" }, { audience: "api" }), "claim_mismatch");
  assert.equal(await code({ exp: T + 60 }, { audience: "api" }), "claim_missing");
  assert.equal(await code({ exp: T + 60, aud: [1] }, { audience: "api" }), "claim_invalid");
});

test("sub and required claims", async () => {
  assert.equal(await code({ exp: T + 60, sub: "alice" }, { subject: "alice" }), undefined);
  assert.equal(await code({ exp: T + 60, sub: "bob" }, { subject: "alice" }), "claim_mismatch");
  assert.equal(await code({ exp: T + 60, tenant: "t1" }, { requiredClaims: ["tenant"] }), undefined);
  assert.equal(await code({ exp: T + 60 }, { requiredClaims: ["tenant"] }), "claim_missing");
  assert.equal(await code({ exp: T + 60, tenant: null }, { requiredClaims: ["tenant"] }), "claim_missing");
});

test("invalid claim options are configuration errors", () => {
  for (const bad of [{ clockTolerance: -1 }, { maxAge: Number.NaN }, { issuer: [] }, { audience: "" }, { subject: "" }, { typ: "" }]) {
    assert.throws(() => createJwtVerifier({ algorithms: ["HS256"], key: SECRET, ...bad }), (e: unknown) => e instanceof JwtError && e.code === "invalid_config");
  }
});

test("typ header check and typed claims", async () => {
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now, typ: "at+jwt" });
  const mk = (typ: string | undefined): string => {
    const header = typ === undefined ? { alg: "HS256" } : { alg: "HS256", typ };
    const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${Buffer.from(JSON.stringify({ exp: T + 60, scope: "read", n: 3 })).toString("base64url")}`;
    return `${input}.${createHmac("sha256", SECRET).update(input).digest("base64url")}`;
  };
  const claims = await verifier.verify<{ scope: string; n: number }>(mk("application/AT+JWT"));
  const scope: string = claims.scope; // typed: would not compile if verify lost the generic
  const n: number = claims.n;
  assert.equal(scope, "read");
  assert.equal(n + 1, 4);
  await assert.rejects(verifier.verify(mk("JWT")), (e: unknown) => e instanceof JwtError && e.code === "typ_mismatch");
  await assert.rejects(verifier.verify(mk(undefined)), (e: unknown) => e instanceof JwtError && e.code === "typ_mismatch");
});

test("claims come back as null-prototype objects, and pollution keys are refused", async () => {
  const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now });
  const claims = await verifier.verify<{ nested: { a: number } }>(token({ exp: T + 60, nested: { a: 1 } }));
  assert.equal(Object.getPrototypeOf(claims), null);
  assert.equal(Object.getPrototypeOf(claims.nested), null);
  const raw = `{"exp":${T + 60},"__proto__":{"admin":true}}`;
  const input = `${Buffer.from('{"alg":"HS256"}').toString("base64url")}.${Buffer.from(raw).toString("base64url")}`;
  const polluted = `${input}.${createHmac("sha256", SECRET).update(input).digest("base64url")}`;
  await assert.rejects(verifier.verify(polluted), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  assert.equal(({} as Record<string, unknown>)["admin"], undefined);
  assert.equal(await code({ exp: T + 60, constructor: { prototype: { x: 1 } } }), "malformed");
});
