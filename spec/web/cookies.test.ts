// Signed cookies and the kernel's Set-Cookie side.
// - cookieSigner: `value.<mac>` (HMAC-SHA256, base64url), key rotation (first signs, any
//   verifies), keys of at least 32 bytes, the mac bound to the cookie name, verify() never
//   throwing on hostile input.
// - signedCookie(): the verified value; absent → 400 (optional() gives undefined); a bad signature
//   → 400 `bad_request` that optional() does not hide; documented as a cookie parameter.
// - reply.setCookie / clearCookie over a real socket: several headers, every attribute, a bad
//   name/value/attribute is a TypeError at the call (a handler doing it answers the uniform 500
//   with no Set-Cookie), and awkward values round-trip through the cookie() extractor.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, Reply, cookie, optional, route, silentLogger, type CookieOptions, type ListeningServer } from "../../lib/index.js";
import { openApiDocument } from "../../lib/openapi/index.js";
import { cookieSigner, signedCookie, MIN_COOKIE_KEY_BYTES } from "../../lib/web/index.js";
import { ERROR_ID, send } from "../support/http.js";

const K1 = "k".repeat(32);
const K2 = "second-key-".padEnd(40, "x");

interface ErrorBody {
  error: { type: string; message: string };
  error_id: string;
}

describe("cookieSigner", () => {
  it("signs as value.<43 base64url chars> and verifies its own signature", () => {
    const s = cookieSigner([K1]);
    const signed = s.sign("hello", "c");
    assert.match(signed, /^hello\.[A-Za-z0-9_-]{43}$/);
    assert.equal(s.verify(signed, "c"), "hello");
    assert.equal(s.sign("hello", "c"), signed, "deterministic");
  });

  it("keeps dots, empty strings and unicode in the value", () => {
    const s = cookieSigner([K1]);
    for (const v of ["", "a.b.c", "x.", ".", "héllo wörld; ☃", "a".repeat(3000)]) {
      assert.equal(s.verify(s.sign(v, "n"), "n"), v, JSON.stringify(v).slice(0, 20));
    }
  });

  it("binds the mac to the cookie name: a value moved to another name is refused", () => {
    const s = cookieSigner([K1]);
    const signed = s.sign("admin", "role");
    assert.equal(s.verify(signed, "role"), "admin");
    assert.equal(s.verify(signed, "sid"), null);
    assert.equal(s.verify(signed), null, "named signature does not verify unnamed");
    assert.equal(s.verify(s.sign("admin"), "role"), null, "unnamed signature does not verify named");
    assert.equal(s.verify(s.sign("admin"), undefined), "admin");
    // the length prefix: ("ab", "c…") and ("a", "bc…") are different messages
    assert.equal(s.verify(s.sign("x", "ab"), "a"), null);
  });

  it("refuses any change to the value or the mac", () => {
    const s = cookieSigner([K1]);
    const signed = s.sign("user=42", "c");
    const dot = signed.lastIndexOf(".");
    const value = signed.slice(0, dot);
    const mac = signed.slice(dot + 1);
    assert.equal(s.verify("user=43." + mac, "c"), null);
    assert.equal(s.verify(value + "x." + mac, "c"), null);
    for (let i = 0; i < mac.length; i++) {
      const c = mac[i] === "A" ? "B" : "A";
      assert.equal(s.verify(value + "." + mac.slice(0, i) + c + mac.slice(i + 1), "c"), null, `mac char ${i}`);
    }
    // The last base64url character carries 2 unused bits: a non-canonical spelling is refused too.
    const last = mac[42]!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    assert.equal(Buffer.from(mac.slice(0, 42) + sibling, "base64url").equals(Buffer.from(mac, "base64url")), true);
    assert.equal(s.verify(value + "." + mac.slice(0, 42) + sibling, "c"), null);
  });

  it("returns null, never throws, on hostile input", () => {
    const s = cookieSigner([K1]);
    const mac = s.sign("v", "c").split(".")[1]!;
    const hostile: unknown[] = ["", ".", "v", "v.", "v." + mac.slice(0, 42), "v." + mac + "A", "v." + mac + "=", "v." + "!".repeat(43), "v." + "é".repeat(43), mac, "." + mac, undefined, null, 42, {}, ["v." + mac], Symbol("x")];
    for (const h of hostile) assert.equal(s.verify(h as string, "c"), null, String(typeof h === "symbol" ? "symbol" : JSON.stringify(h)));
    assert.equal(s.verify("v." + mac, 7 as unknown as string), null);
  });

  it("rotates keys: signs with the first, verifies with any", () => {
    const old = cookieSigner([K1]);
    const rotated = cookieSigner([K2, K1]);
    const byOld = old.sign("v", "c");
    assert.equal(rotated.verify(byOld, "c"), "v", "old cookies still verify");
    const byNew = rotated.sign("v", "c");
    assert.notEqual(byNew, byOld, "the first key signs");
    assert.equal(cookieSigner([K2]).verify(byNew, "c"), "v");
    assert.equal(old.verify(byNew, "c"), null);
    assert.equal(cookieSigner([K2]).verify(byOld, "c"), null, "a retired key no longer verifies");
  });

  it("accepts keys of exactly 32 bytes, refuses 31, an empty list and non-keys", () => {
    assert.equal(MIN_COOKIE_KEY_BYTES, 32);
    assert.doesNotThrow(() => cookieSigner(["a".repeat(32)]));
    assert.doesNotThrow(() => cookieSigner([Buffer.alloc(32, 1)]));
    assert.doesNotThrow(() => cookieSigner(["é".repeat(16)]), "32 bytes in UTF-8");
    assert.throws(() => cookieSigner(["a".repeat(31)]), TypeError);
    assert.throws(() => cookieSigner([Buffer.alloc(31, 1)]), TypeError);
    assert.throws(() => cookieSigner(["é".repeat(15) + "a"]), TypeError, "31 bytes in UTF-8");
    assert.throws(() => cookieSigner([K1, "short"]), /key 1 must be at least 32 bytes/);
    assert.throws(() => cookieSigner([]), TypeError);
    assert.throws(() => cookieSigner(undefined as unknown as string[]), TypeError);
    assert.throws(() => cookieSigner([42 as unknown as string]), TypeError);
  });

  it("copies Buffer keys: changing the caller's buffer later changes nothing", () => {
    const key = Buffer.alloc(32, 7);
    const s = cookieSigner([key]);
    const signed = s.sign("v", "c");
    key.fill(0);
    assert.equal(s.verify(signed, "c"), "v");
  });
});

describe("signedCookie()", () => {
  const signer = cookieSigner([K1]);
  const app = new App({ logger: silentLogger }).routes(
    route.get("/me", [signedCookie("user", signer)], (user) => ({ user })),
    route.get("/maybe", [optional(signedCookie("user", signer))], (user) => ({ user: user ?? null })),
  );
  const get = (url: string, cookieHeader?: string) => app.inject({ url, headers: cookieHeader === undefined ? {} : { cookie: cookieHeader } });

  it("gives the verified value of a cookie set with reply.setCookie", async () => {
    const setter = new App({ logger: silentLogger }).routes(route.get("/login", [], () => new Reply(204, null).setCookie("user", signer.sign("ada lovelace; ☃", "user"))));
    const set = await setter.inject({ url: "/login" });
    const header = String(set.headers["set-cookie"]);
    const pair = header.slice(0, header.indexOf(";"));
    const r = await get("/me", pair);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), { user: "ada lovelace; ☃" });
  });

  it("answers 400 when absent, and optional() gives undefined", async () => {
    const r = await get("/me");
    assert.equal(r.status, 400);
    const body = r.json<ErrorBody>();
    assert.equal(body.error.type, "bad_request");
    assert.equal(body.error.message, "Missing required cookie: user");
    assert.match(body.error_id, ERROR_ID);
    const m = await get("/maybe", "other=1");
    assert.equal(m.status, 200);
    assert.deepEqual(m.json(), { user: null });
  });

  it("answers 400 for a bad signature, and optional() does not hide it", async () => {
    const good = signer.sign("ada", "user");
    const bad = [
      "ada", // unsigned
      good.replace("ada", "bob"),
      good.slice(0, -1) + (good.endsWith("A") ? "B" : "A"),
      signer.sign("ada", "other"), // signed for another cookie name
      cookieSigner([K2]).sign("ada", "user"), // another key
      "",
    ];
    for (const value of bad) {
      for (const url of ["/me", "/maybe"]) {
        const r = await get(url, `user=${encodeURIComponent(value)}`);
        assert.equal(r.status, 400, `${url} ${value}`);
        const body = r.json<ErrorBody>();
        assert.equal(body.error.type, "bad_request");
        assert.equal(body.error.message, "cookie user has an invalid signature");
      }
    }
  });

  it("verifies with any key of a rotated signer", async () => {
    const rotated = new App({ logger: silentLogger }).routes(route.get("/me", [signedCookie("user", cookieSigner([K2, K1]))], (user) => user));
    const r = await rotated.inject({ url: "/me", headers: { cookie: `user=${signer.sign("ada", "user")}` } });
    assert.equal(r.status, 200);
    assert.equal(r.json(), "ada");
  });

  it("documents itself as a required cookie parameter (optional: not required) with a 400", () => {
    const e = signedCookie("user", signer);
    assert.deepEqual(e.doc.parameters?.map((p) => [p.in, p.name, p.required]), [["cookie", "user", true]]);
    assert.deepEqual(e.doc.errorStatuses, [400]);
    assert.equal(optional(e).doc.parameters?.[0]?.required, false);
    const doc = openApiDocument(app) as { paths: Record<string, { get: { parameters?: Array<{ in: string; name: string; required: boolean }> } }> };
    const params = doc.paths["/me"]!.get.parameters ?? [];
    assert.deepEqual(params.filter((p) => p.in === "cookie").map((p) => [p.name, p.required]), [["user", true]]);
    const maybe = doc.paths["/maybe"]!.get.parameters ?? [];
    assert.deepEqual(maybe.filter((p) => p.in === "cookie").map((p) => [p.name, p.required]), [["user", false]]);
  });

  it("refuses an invalid cookie name when built", () => {
    for (const name of ["", "a b", "a;b", "a=b", "é"]) assert.throws(() => signedCookie(name, signer), TypeError, name);
  });
});

describe("reply.setCookie and clearCookie over a real socket", () => {
  let server: ListeningServer;
  const seen: Array<string | undefined> = [];
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(
      route.get("/many", [], () =>
        new Reply(200, "ok")
          .setCookie("a", "1")
          .setCookie("b", "2", { path: "/b", httpOnly: true })
          .setCookie("c", "3", {
            maxAge: 3600,
            expires: new Date(Date.UTC(2030, 0, 2, 3, 4, 5)),
            path: "/app",
            domain: "example.com",
            secure: true,
            httpOnly: true,
            sameSite: "None",
            partitioned: true,
          })
          .setCookie("d", "4", { sameSite: "Strict", maxAge: 0 }),
      ),
      route.get("/clear", [], () => new Reply(204, null).clearCookie("a").clearCookie("c", { path: "/app", domain: "example.com", secure: true, sameSite: "None" })),
      route.get("/set", [], () => new Reply(204, null).setCookie("v", "a; b=c, d \"e\" \\ é ☃ 😀 %41 +")),
      route.get("/read", [cookie("v")], (v) => {
        seen.push(v);
        return { v };
      }),
      route.get("/bad-name", [], () => new Reply(200, "no").setCookie("a;b", "1")),
      route.get("/bad-attr", [], () => new Reply(200, "no").setCookie("ok", "1").setCookie("x", "1", { sameSite: "None" })),
      route.get("/bad-value", [], () => new Reply(200, "no").setCookie("x", "y".repeat(4096))),
    );
    server = await app.listen({ port: 0 });
  });
  after(() => server.close());

  it("sends one Set-Cookie header per cookie, with every attribute", async () => {
    const r = await send(server.url + "/many");
    assert.equal(r.status, 200);
    assert.deepEqual(r.headers["set-cookie"], [
      "a=1; Path=/; SameSite=Lax",
      "b=2; Path=/b; HttpOnly; SameSite=Lax",
      "c=3; Path=/app; Domain=example.com; Max-Age=3600; Expires=Wed, 02 Jan 2030 03:04:05 GMT; HttpOnly; Secure; SameSite=None; Partitioned",
      "d=4; Path=/; Max-Age=0; SameSite=Strict",
    ]);
  });

  it("clears cookies with an empty value and Max-Age=0, keeping path and domain", async () => {
    const r = await send(server.url + "/clear");
    assert.equal(r.status, 204);
    assert.deepEqual(r.headers["set-cookie"], ["a=; Path=/; Max-Age=0; SameSite=Lax", "c=; Path=/app; Domain=example.com; Max-Age=0; Secure; SameSite=None"]);
  });

  it("round-trips ;, spaces, quotes, commas, backslashes and unicode through the cookie() extractor", async () => {
    const value = "a; b=c, d \"e\" \\ é ☃ 😀 %41 +";
    const set = await send(server.url + "/set");
    const header = set.headers["set-cookie"]![0]!;
    const pair = header.slice(0, header.indexOf(";"));
    assert.match(pair, /^v=[\x21-\x7e]+$/, "only cookie-octets on the wire");
    assert.ok(!/[;, "\\]/.test(pair.slice(2)));
    const r = await send(server.url + "/read", { headers: { cookie: `other=1; ${pair}` } });
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { v: value });
    assert.equal(seen.at(-1), value);
  });

  for (const [path, what] of [["/bad-name", "a bad name"], ["/bad-attr", "a bad attribute"], ["/bad-value", "a value over 4096 bytes"]] as const) {
    it(`answers the uniform 500 with no Set-Cookie when a handler sets ${what}`, async () => {
      const r = await send(server.url + path);
      assert.equal(r.status, 500);
      assert.equal(r.headers["set-cookie"], undefined);
      const body = JSON.parse(r.body) as ErrorBody;
      assert.equal(body.error.type, "internal_error");
      assert.match(body.error_id, ERROR_ID);
    });
  }
});

describe("reply.setCookie validation at the call", () => {
  const set = (name: string, value: string, options?: CookieOptions) => () => new Reply(200, null).setCookie(name, value, options);

  it("throws a TypeError for invalid names", () => {
    for (const name of ["", "a b", "a;b", "a=b", "a,b", "a\r\nb", "é", "a\"b", "(a)", "a/b"]) assert.throws(set(name, "1"), TypeError, JSON.stringify(name));
  });

  it("throws a TypeError for invalid attributes", () => {
    const bad: CookieOptions[] = [
      { path: "no-slash" },
      { path: "/a;b" },
      { path: "/a\r\nb" },
      { domain: "" },
      { domain: "a;b.com" },
      { domain: "a b.com" },
      { domain: "a.com\r\nX: y" },
      { maxAge: -1 },
      { maxAge: 1.5 },
      { maxAge: Number.NaN },
      { expires: new Date(Number.NaN) },
      { expires: "2030-01-01" as unknown as Date },
      { sameSite: "none" as "None" },
      { sameSite: "None" },
      { partitioned: true },
    ];
    for (const options of bad) assert.throws(set("x", "1", options), TypeError, JSON.stringify(options));
    assert.throws(set("__Secure-x", "1"), TypeError);
    assert.throws(set("__Host-x", "1", { secure: true, domain: "example.com" }), TypeError);
    assert.throws(set("__Host-x", "1", { secure: true, path: "/a" }), TypeError);
    assert.doesNotThrow(set("__Host-x", "1", { secure: true }));
    assert.doesNotThrow(set("x", "1", { maxAge: 0 }));
  });

  it("limits name + encoded value to 4096 bytes exactly", () => {
    assert.doesNotThrow(set("x", "y".repeat(4095)));
    assert.throws(set("x", "y".repeat(4096)), TypeError);
    // percent-encoding counts: "é" is 6 bytes on the wire
    assert.doesNotThrow(set("x", "é".repeat(682) + "yyy"));
    assert.throws(set("x", "é".repeat(682) + "yyyy"), TypeError);
  });

  it("leaves the reply unchanged when a call throws", () => {
    const r = new Reply(200, null).setCookie("a", "1");
    assert.throws(() => r.setCookie("b", "1", { maxAge: -1 }), TypeError);
    assert.equal(r.headers["set-cookie"], "a=1; Path=/; SameSite=Lax");
  });

  it("throws a TypeError (not a URIError) for a value with a lone surrogate", () => {
    assert.throws(set("x", "a\uD800b"), TypeError);
  });
});
