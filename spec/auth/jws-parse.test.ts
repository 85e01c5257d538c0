// Malformed input never crashes and always gets a clear code; strict base64url; the raw JWS
// verifier's RFC 7797 (b64:false), detached content and JSON serializations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { base64urlDecode, base64urlEncode, createJwsVerifier, createJwtVerifier, isBase64url, JwtError, signJws } from "../../lib/jose/index.js";

const SECRET = Buffer.alloc(32, 3);
const now = (): number => 1_700_000_000_000;
const verifier = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now, requireExpiration: false });

function b64(text: string): string {
  return Buffer.from(text).toString("base64url");
}
function mac(input: string): string {
  return createHmac("sha256", SECRET).update(input).digest("base64url");
}
function signed(headerText: string, payloadText: string): string {
  const input = `${b64(headerText)}.${b64(payloadText)}`;
  return `${input}.${mac(input)}`;
}

async function codeOf(token: unknown): Promise<string | undefined> {
  try {
    await verifier.verify(token as string);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof JwtError, `not a JwtError: ${String(error)}`);
    return error.code;
  }
}

const GOOD = signed('{"alg":"HS256"}', '{"sub":"x"}');

test("the well-formed baseline verifies (so the cases below fail for their own reason)", async () => {
  assert.equal(await codeOf(GOOD), undefined);
});

test("wrong segment counts are malformed", async () => {
  const [h, p, s] = GOOD.split(".");
  for (const token of ["", ".", "..", "...", `${h}.${p}`, `${h}.${p}.${s}.`, `${h}.${p}.${s}.x.y`, `${h}`, `${h}..${p}.${s}`]) {
    assert.equal(await codeOf(token), "malformed", JSON.stringify(token));
  }
});

test("base64url must be strict in every segment: no padding, '+', '/', spaces or junk", async () => {
  const [h, p, s] = GOOD.split(".");
  const variants = [
    `${h}=.${p}.${s}`, `${h}.${p}=.${s}`, `${h}.${p}.${s}=`, `${h}.${p}.${s}==`,
    `${h}.${p}.${s!.replace(/[-_]/, "+")}`, `${h}.${p}.${s!.replace(/[-_]/, "/")}`,
    `${h}.${p}.${s!.slice(0, 10)}+${s!.slice(10)}`, ` ${h}.${p}.${s}`, `${h}.${p}.${s} `, `${h}.${p}.${s}\n`,
    `${h}.${p}.?${s}`, `${h}.${p}.${s!.slice(0, -1)}\u00e9`,
  ];
  for (const token of variants) assert.equal(await codeOf(token), "malformed", token);
});

test("non-canonical base64url (non-zero unused bits) is rejected", () => {
  assert.equal(isBase64url("QQ"), true); // "A"
  assert.equal(isBase64url("QR"), false); // same byte, stray low bits
  assert.equal(isBase64url("QUI"), true);
  assert.equal(isBase64url("QUJ"), false);
  assert.equal(isBase64url("Q"), false); // impossible length
  assert.equal(base64urlDecode("QR"), undefined);
  assert.equal(base64urlDecode("QUI")!.toString(), "AB");
  assert.equal(base64urlEncode(Buffer.from([0xfb, 0xff])), "-_8");
  assert.deepEqual([...base64urlDecode("-_8")!], [0xfb, 0xff]);
});

test("headers that are not JSON objects, or not UTF-8, are malformed", async () => {
  for (const header of ["not json", "[]", "null", '"HS256"', "1", '{"alg":"HS256"', "{'alg':'HS256'}"]) {
    assert.equal(await codeOf(signed(header, "{}")), "malformed", header);
  }
  const badUtf8 = Buffer.from([0x7b, 0x22, 0x61, 0xff, 0x22, 0x3a, 0x31, 0x7d]).toString("base64url");
  assert.equal(await codeOf(`${badUtf8}.${b64("{}")}.${mac(`${badUtf8}.${b64("{}")}`)}`), "malformed");
  assert.equal(await codeOf(signed('{"alg":"HS256","kid":5}', "{}")), "malformed");
  assert.equal(await codeOf(signed('{"alg":"HS256","__proto__":{"x":1}}', "{}")), "malformed");
});

test("payloads that are not JSON objects are malformed (after the signature check)", async () => {
  for (const payload of ["hello", "[1]", "null", "42", '"s"']) {
    assert.equal(await codeOf(signed('{"alg":"HS256"}', payload)), "malformed", payload);
  }
});

test("huge tokens are refused before any parsing; the limit is configurable", async () => {
  const big = signed('{"alg":"HS256"}', JSON.stringify({ pad: "x".repeat(9000) }));
  assert.equal(await codeOf(big), "too_large");
  assert.equal(await codeOf("a".repeat(100_000)), "too_large");
  const roomy = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now, requireExpiration: false, maxTokenLength: 20_000 });
  assert.equal(((await roomy.verify(big)) as { pad: string }).pad.length, 9000);
});

test("non-string tokens are malformed, not crashes", async () => {
  for (const token of [undefined, null, 42, {}, [], Buffer.from(GOOD)]) assert.equal(await codeOf(token), "malformed");
});

test("random garbage never produces anything but a JwtError", async () => {
  let seed = 12345;
  const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ {}\"";
  for (let i = 0; i < 500; i++) {
    const chars = Array.from({ length: rand(120) }, () => alphabet[rand(alphabet.length)]).join("");
    const mutated = GOOD.slice(0, rand(GOOD.length)) + chars;
    const code = await codeOf(mutated);
    assert.notEqual(code, undefined, mutated);
  }
});

test("raw JWS: RFC 7797 b64:false is understood only when listed in crit", async () => {
  const jws = createJwsVerifier({ algorithms: ["HS256"], key: SECRET, allowUnencodedPayload: true });
  const header = b64('{"alg":"HS256","b64":false,"crit":["b64"]}');
  // A '.' in an unencoded compact payload cannot be told from a separator (RFC 7797 §5.2).
  const dotted = `${header}.$.02.${mac(`${header}.$.02`)}`;
  await assert.rejects(jws.verify(dotted), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  const ok = `${header}.$02.${mac(`${header}.$02`)}`;
  assert.equal((await jws.verify(ok)).payload.toString(), "$02");
  const noCrit = b64('{"alg":"HS256","b64":false}');
  await assert.rejects(jws.verify(`${noCrit}.$02.${mac(`${noCrit}.$02`)}`), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  const strict = createJwsVerifier({ algorithms: ["HS256"], key: SECRET });
  await assert.rejects(strict.verify(ok), (e: unknown) => e instanceof JwtError && e.code === "crit_unsupported");
});

test("raw JWS: detached content and the JSON serializations", async () => {
  const jws = createJwsVerifier({ algorithms: ["HS256"], key: SECRET });
  const compact = signJws("detached body", { algorithm: "HS256", key: SECRET, header: { kid: "k" } });
  const [h, p, s] = compact.split(".");
  assert.equal((await jws.verify(`${h}..${s}`, "detached body")).payload.toString(), "detached body");
  await assert.rejects(jws.verify(`${h}..${s}`, "other body"), (e: unknown) => e instanceof JwtError && e.code === "bad_signature");
  await assert.rejects(jws.verify(compact, "detached body"), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  const flattened = { protected: h, payload: p, signature: s };
  assert.equal((await jws.verifyJson(flattened))[0]!.payload.toString(), "detached body");
  assert.equal((await jws.verifyJson(JSON.stringify({ payload: p, signatures: [{ protected: h, signature: s }] })))[0]!.header.kid, "k");
  // Unprotected members must not repeat protected ones; crit must be protected.
  await assert.rejects(jws.verifyJson({ ...flattened, header: { kid: "other" } }), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  await assert.rejects(jws.verifyJson({ ...flattened, header: { crit: ["x"] } }), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  // Every signature of a general JWS must verify.
  const bad = { protected: h, signature: Buffer.alloc(32).toString("base64url") };
  await assert.rejects(jws.verifyJson({ payload: p, signatures: [{ protected: h, signature: s }, bad] }), (e: unknown) => e instanceof JwtError && e.code === "bad_signature");
  for (const junk of [null, [], "x", { payload: p }, { payload: p, signatures: [] }, { payload: 5, signature: s, protected: h }]) {
    await assert.rejects(jws.verifyJson(junk), (e: unknown) => e instanceof JwtError && e.code === "malformed");
  }
});

test("the same header on many tokens: each verification hands out a header object of its own", async () => {
  const complete = createJwtVerifier({ algorithms: ["HS256"], key: SECRET, now, requireExpiration: false });
  const token = signed('{"alg":"HS256","typ":"JWT","kid":"k1"}', '{"sub":"x"}');
  const first = await complete.verifyComplete(token);
  (first.header as Record<string, unknown>)["typ"] = "changed by the caller";
  const second = await complete.verifyComplete(token);
  assert.notEqual(second.header, first.header);
  assert.deepEqual({ ...second.header }, { alg: "HS256", typ: "JWT", kid: "k1" });
  assert.equal(Object.getPrototypeOf(second.header), null);
  // A header with a nested member (not memoized) is parsed per token: still its own object.
  const nested = signed('{"alg":"HS256","x":{"y":1}}', '{"sub":"x"}');
  const a = await complete.verifyComplete(nested);
  const b = await complete.verifyComplete(nested);
  assert.notEqual(a.header["x"], b.header["x"]);
});

test("forbidden member names: the first one in parse order is named, nested objects first", async () => {
  const message = async (payload: string): Promise<string> => {
    try {
      await verifier.verify(signed('{"alg":"HS256"}', payload));
      return "";
    } catch (error) {
      assert.ok(error instanceof JwtError);
      return error.message;
    }
  };
  assert.equal(await message('{"a":{"prototype":1},"__proto__":2}'), 'claims: member name "prototype" is not allowed');
  assert.equal(await message('{"constructor":1,"__proto__":2}'), 'claims: member name "constructor" is not allowed');
  assert.equal(await message('{"list":[{"ok":1},{"__proto__":{}}]}'), 'claims: member name "__proto__" is not allowed');
  const claims = await verifier.verify<{ list: { ok: number }[] }>(signed('{"alg":"HS256"}', '{"sub":"x","list":[{"ok":1}],"o":{"p":{"q":null}}}'));
  assert.equal(Object.getPrototypeOf(claims), null);
  assert.equal(Object.getPrototypeOf(claims.list[0]), null);
  assert.ok(Array.isArray(claims.list));
});
