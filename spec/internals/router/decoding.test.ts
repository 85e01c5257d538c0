import { test } from "node:test";
import assert from "node:assert/strict";
import { BadPathError, DEFAULT_MAX_PARAM_LENGTH, Router } from "../../../lib/router/index.js";

function router(options?: { maxParamLength?: number }): Router<string> {
  const r = new Router<string>(options);
  r.add("GET", "/items/{id}", "item");
  r.add("GET", "/items/{id}/parts/{part}", "part");
  r.add("GET", "/files/{*path}", "files");
  r.add("GET", "/items/static", "static");
  return r;
}

function badPath(fn: () => unknown): BadPathError {
  try {
    fn();
  } catch (e) {
    if (e instanceof BadPathError) return e;
    throw e;
  }
  assert.fail("expected a BadPathError");
}

test("parameter values are percent-decoded exactly once", () => {
  const r = router();
  const id = (path: string): string | undefined => r.find("GET", path)?.params["id"];
  assert.equal(id("/items/a%2Fb"), "a/b"); // an encoded slash is data, not a separator
  assert.equal(id("/items/100%25"), "100%");
  assert.equal(id("/items/%2541"), "%41"); // once: "%2541" -> "%41", not "A"
  assert.equal(id("/items/%E2%82%AC"), "€");
  assert.equal(id("/items/a+b"), "a+b"); // "+" is not a space in a path
  assert.equal(id("/items/plain"), "plain");
  assert.equal(r.find("GET", "/items/%E2%82%AC/parts/x%20y")?.params["part"], "x y");
  assert.equal(r.find("GET", "/files/dir%2Fsub/%E2%82%AC")?.params["path"], "dir/sub/€");
});

test("invalid percent-encoding throws BadPathError bad_encoding naming the parameter", () => {
  const r = router();
  for (const [path, param] of [
    ["/items/%E2%82", "id"], // truncated UTF-8
    ["/items/%zz", "id"],
    ["/items/abc%", "id"],
    ["/items/%C0%AF", "id"], // overlong UTF-8
    ["/items/ok/parts/%ED%A0%80", "part"], // lone surrogate
    ["/files/a/%E2%82", "path"],
  ] as const) {
    const error = badPath(() => r.find("GET", path));
    assert.equal(error.reason, "bad_encoding", path);
    assert.equal(error.param, param, path);
    assert.match(error.message, new RegExp(`"${param}"`), path);
  }
  // static routes never decode, so a bad escape there is just no match
  assert.equal(r.find("GET", "/items/static%zz/x"), null);
});

test("maxParamLength defaults to 100 and too-long values become param_too_long", () => {
  assert.equal(DEFAULT_MAX_PARAM_LENGTH, 100);
  const r = router();
  assert.equal(r.find("GET", "/items/" + "x".repeat(100))?.params["id"], "x".repeat(100));
  const error = badPath(() => r.find("GET", "/items/" + "x".repeat(101)));
  assert.equal(error.reason, "param_too_long");
  assert.equal(error.param, "id");
  assert.match(error.message, /"id" is 101 characters long; the limit is 100/);
  const part = badPath(() => r.find("GET", "/items/1/parts/" + "y".repeat(150)));
  assert.equal(part.param, "part");
  // the limit applies to the raw value
  assert.equal(badPath(() => r.find("GET", "/items/" + "%41".repeat(40))).reason, "param_too_long");
  // wildcards are not limited
  assert.equal(r.find("GET", "/files/" + "z".repeat(5000))?.params["path"], "z".repeat(5000));
});

test("a too-long value that would not have matched anyway is a plain miss", () => {
  const r = router();
  assert.equal(r.find("GET", "/items/" + "x".repeat(101) + "/nothing/here"), null);
  assert.equal(r.find("POST", "/items/" + "x".repeat(101)), null);
});

test("a too-long parameter lets matching fall back to a wildcard", () => {
  const r = new Router<string>({ maxParamLength: 5 });
  r.add("GET", "/u/{id}", "id");
  r.add("GET", "/u/{*rest}", "rest");
  assert.equal(r.find("GET", "/u/12345")?.value, "id");
  const m = r.find("GET", "/u/123456");
  assert.equal(m?.value, "rest");
  assert.equal(m?.params["rest"], "123456");
});

test("custom maxParamLength", () => {
  const r = router({ maxParamLength: 3 });
  assert.equal(r.find("GET", "/items/abc")?.params["id"], "abc");
  const error = badPath(() => r.find("GET", "/items/abcd"));
  assert.equal(error.reason, "param_too_long");
  assert.match(error.message, /limit is 3/);
  const big = router({ maxParamLength: 1000 });
  assert.equal(big.find("GET", "/items/" + "x".repeat(1000))?.params["id"]?.length, 1000);
  const huge = router({ maxParamLength: 1e12 });
  assert.equal(huge.find("GET", "/items/" + "x".repeat(20000))?.params["id"]?.length, 20000);
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => new Router({ maxParamLength: bad }), /maxParamLength must be a positive integer/);
  }
});

test("hostile paths never throw anything but BadPathError", () => {
  const r = router();
  const paths = ["/items/%", "/items/%%", "/\u0000", "/items/\uD800", "/" + "/".repeat(10000), "/items/" + "%".repeat(50)];
  for (const path of paths) {
    try {
      r.find("GET", path);
    } catch (e) {
      assert.ok(e instanceof BadPathError, JSON.stringify(path).slice(0, 40));
    }
  }
});
