// JWKS fetched over HTTP from a local server: caching with a TTL, refresh on unknown kid,
// the refresh rate limit, coalesced concurrent refreshes, failures. The clock is injected.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync } from "node:crypto";
import { createJwtVerifier, JwtError, RemoteJwks, signJwt } from "../../lib/jose/index.js";
import type { JwtVerifier } from "../../lib/jose/index.js";

const keyA = generateKeyPairSync("ec", { namedCurve: "P-256" });
const keyB = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwkOf = (pair: typeof keyA, kid: string): Record<string, unknown> => ({ ...pair.publicKey.export({ format: "jwk" }), kid, use: "sig", alg: "ES256" });

let clock = 1_700_000_000_000;
const now = (): number => clock;

interface JwksServer {
  url: string;
  hits: () => number;
  setKeys: (keys: unknown[]) => void;
  setStatus: (status: number) => void;
  close: () => Promise<void>;
}

async function startServer(initial: unknown[]): Promise<JwksServer> {
  let keys = initial;
  let status = 200;
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(status, { "content-type": "application/json" }).end(status === 200 ? JSON.stringify({ keys }) : "oops");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    hits: () => hits,
    setKeys: (k) => (keys = k),
    setStatus: (s) => (status = s),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function tokenFor(pair: typeof keyA, kid: string): string {
  return signJwt({ k: kid }, { algorithm: "ES256", key: pair.privateKey, kid, expiresIn: 3600, now });
}

async function code(verifier: JwtVerifier, token: string): Promise<string | undefined> {
  try {
    await verifier.verify(token);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof JwtError, String(error));
    return error.code;
  }
}

test("fetches once, caches for the TTL, then refetches", async () => {
  const server = await startServer([jwkOf(keyA, "a")]);
  try {
    const verifier = createJwtVerifier({ algorithms: ["ES256"], jwksUrl: server.url, jwks: { ttlMs: 60_000 }, now });
    assert.equal(server.hits(), 0, "nothing is fetched before the first token");
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 1);
    clock += 59_999;
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 1);
    clock += 1;
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 2);
  } finally {
    await server.close();
  }
});

test("concurrent verifications share one fetch", async () => {
  const server = await startServer([jwkOf(keyA, "a")]);
  try {
    const verifier = createJwtVerifier({ algorithms: ["ES256"], jwksUrl: server.url, now });
    const results = await Promise.all(Array.from({ length: 8 }, () => code(verifier, tokenFor(keyA, "a"))));
    assert.deepEqual(results, Array(8).fill(undefined));
    assert.equal(server.hits(), 1);
  } finally {
    await server.close();
  }
});

test("an unknown kid triggers one refresh (key rotation), rate-limited to once per cooldown", async () => {
  const server = await startServer([jwkOf(keyA, "a")]);
  try {
    const verifier = createJwtVerifier({ algorithms: ["ES256"], jwksUrl: server.url, jwks: { ttlMs: 3_600_000, cooldownMs: 30_000 }, now });
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 1);
    // The provider rotates in key b. The first b-token is within the cooldown of the initial fetch.
    server.setKeys([jwkOf(keyA, "a"), jwkOf(keyB, "b")]);
    assert.equal(await code(verifier, tokenFor(keyB, "b")), "key_not_found");
    assert.equal(server.hits(), 1, "no refresh within the cooldown");
    clock += 30_000;
    assert.equal(await code(verifier, tokenFor(keyB, "b")), undefined);
    assert.equal(server.hits(), 2, "refreshed once for the unknown kid");
    // Forged kids cannot make us hammer the provider.
    for (let i = 0; i < 20; i++) assert.equal(await code(verifier, tokenFor(keyB, `forged-${i}`)), "key_not_found");
    assert.equal(server.hits(), 2);
    clock += 30_000;
    const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => code(verifier, tokenFor(keyB, `forged-x${i}`))));
    assert.deepEqual(burst, Array(5).fill("key_not_found"));
    assert.equal(server.hits(), 3, "one coalesced refresh after the cooldown");
  } finally {
    await server.close();
  }
});

test("failures: unavailable without a cached copy, stale copy served when a refresh fails", async () => {
  const server = await startServer([jwkOf(keyA, "a")]);
  try {
    server.setStatus(500);
    const verifier = createJwtVerifier({ algorithms: ["ES256"], jwksUrl: server.url, jwks: { ttlMs: 60_000, cooldownMs: 30_000 }, now });
    assert.equal(await code(verifier, tokenFor(keyA, "a")), "jwks_unavailable");
    assert.equal(await code(verifier, tokenFor(keyA, "a")), "jwks_unavailable");
    assert.equal(server.hits(), 1, "a failed fetch is not retried within the cooldown");
    server.setStatus(200);
    clock += 30_000;
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 2);
    server.setStatus(500);
    clock += 60_000; // TTL over; the refresh fails, the cached keys keep working
    assert.equal(await code(verifier, tokenFor(keyA, "a")), undefined);
    assert.equal(server.hits(), 3);
  } finally {
    await server.close();
  }
});

test("fetched sets: symmetric, weak and non-signing keys are skipped, the rest stay usable", async () => {
  const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
  const server = await startServer([
    { kty: "oct", k: Buffer.alloc(32, 1).toString("base64url"), kid: "h" },
    { ...weak.publicKey.export({ format: "jwk" }), kid: "weak" },
    { ...jwkOf(keyB, "enc"), use: "enc" },
    { kty: "XYZ", kid: "odd" },
    jwkOf(keyA, "a"),
  ]);
  try {
    const skipped: string[] = [];
    const remote = new RemoteJwks(server.url, ["ES256", "RS256"], { now, onSkippedKeys: (list) => skipped.push(...list.map((s) => String(s.kid))) });
    assert.equal((await remote.candidates("ES256", "a")).length, 1);
    assert.deepEqual(skipped.sort(), ["enc", "h", "odd", "weak"]);
    assert.equal((await remote.candidates("RS256", "weak")).length, 0);
  } finally {
    await server.close();
  }
});

test("configuration: no HMAC with a JWKS URL, https unless loopback", () => {
  const refused = (fn: () => unknown): void => assert.throws(fn, (e: unknown) => e instanceof JwtError && e.code === "invalid_config");
  refused(() => createJwtVerifier({ algorithms: ["HS256"], jwksUrl: "https://idp.example/jwks" }));
  refused(() => createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "http://idp.example/jwks" }));
  refused(() => createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "not a url" }));
  refused(() => createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "https://idp.example/jwks", key: "x" }));
  assert.ok(createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "https://idp.example/jwks" }));
  assert.ok(createJwtVerifier({ algorithms: ["RS256"], jwksUrl: "http://localhost:1/jwks" }));
});
