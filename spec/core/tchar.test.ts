// The one tchar table (keel/plugin isTchar, tokenEnd, isHttpToken; lib/util/tchar.ts), which every
// token check reads: header and cookie names, methods, Content-Type, Accept elements, multipart
// parameters, WebSocket extensions, Alt-Svc protocol ids, request-id header names.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, route, silentLogger } from "../../lib/index.js";
import { isHttpToken, isTchar, parseMediaType, tokenEnd } from "../../lib/plugin.js";

// RFC 9110 §5.6.2, written out independently of the table.
const RFC_TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

describe("the tchar table", () => {
  it("holds exactly the RFC 9110 tchar set", () => {
    for (let c = 0; c < 0x300; c++) {
      assert.equal(isTchar(c), RFC_TCHAR.includes(String.fromCharCode(c)), `char code ${c}`);
    }
    assert.equal(isTchar(-1), false);
  });

  it("tokenEnd stops at the first non-tchar", () => {
    assert.equal(tokenEnd("gzip;q=1", 0), 4);
    assert.equal(tokenEnd("a/b", 2), 3);
    assert.equal(tokenEnd("x y", 1), 1);
    assert.equal(tokenEnd("caf\u00e9", 0), 3);
  });

  it("isHttpToken, parseMediaType and the router agree with it", () => {
    for (const s of ["GET", "x-csrf-token", "a!b#c", "UPDATE|X"]) assert.equal(isHttpToken(s), true, s);
    for (const s of ["", "a b", "a:b", "a(b)", "é", "a\u0000", "a,b", "a/b"]) assert.equal(isHttpToken(s), false, s);
    assert.equal(isHttpToken("a".repeat(257)), false);
    assert.equal(isHttpToken("a".repeat(257), 300), true);
    assert.equal(parseMediaType("Application/Vnd.A+JSON; charset=utf-8").essence, "application/vnd.a+json");
    for (const bad of ["a b/c", "a/b c", "a/(b)", "a/b/c", "é/x"]) assert.equal(parseMediaType(bad).essence, "", bad);
    const app = new App({ logger: silentLogger });
    assert.doesNotThrow(() => app.route(route.method("PURGE~1")("/p", [], () => "ok")));
    assert.throws(() => app.route(route.method("PUR GE")("/q", [], () => "ok")), /RFC 9110 token/);
  });
});
