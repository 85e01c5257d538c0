import { test } from "node:test";
import assert from "node:assert/strict";
import { RouteError, Router, normalizePattern } from "../../../lib/router/index.js";

function routeError(fn: () => unknown): RouteError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RouteError) return e;
    throw e;
  }
  assert.fail("expected a RouteError");
}

test("malformed paths are refused with a message naming the path and the problem", () => {
  const cases: Array<[string, RegExp]> = [
    ["", /must start with "\/"/],
    ["users", /must start with "\/"/],
    ["//", /empty segment \("\/\/"\)/],
    ["/a//b", /empty segment/],
    ["//a", /empty segment/],
    ["/{id", /unclosed "\{" in "\{id"/],
    ["/id}", /unbalanced "\}" in "id\}"/],
    ["/{a/b}", /unclosed "\{"/],
    ["/{{id}}", /nested braces/],
    ["/{a{b}}", /nested braces/],
    ["/{}", /empty parameter name in "\{\}"/],
    ["/:", /empty parameter name in ":"/],
    ["/{ id}", /parameter name " id" .* must match \[A-Za-z_\]\[A-Za-z0-9_\]\*/],
    ["/{1id}", /parameter name "1id"/],
    ["/:user-id", /parameter name "user-id"/],
    ["/{*a-b}", /parameter name "a-b"/],
    ["/{__proto__}", /"__proto__" is reserved/],
    ["/:constructor", /"constructor" is reserved/],
    ["/{*prototype}", /"prototype" is reserved/],
    ["/file.{ext}", /"file\.\{ext\}": a parameter must be a whole segment/],
    ["/{a}-{b}", /"\{a\}-\{b\}": a parameter must be a whole segment/],
    ["/{a}x", /a parameter must be a whole segment/],
    ["/file.:ext", /":" inside a segment is ambiguous/],
    ["/files*", /"\*" inside a segment is ambiguous/],
    ["/{*rest}/more", /the wildcard "\{\*rest\}" must be the last segment/],
    ["/*rest/", /the wildcard "\*rest" must be the last segment/],
    ["/*/x", /the wildcard "\*" must be the last segment/],
    ["/{id}/x/{id}", /parameter name "id" is used twice/],
    ["/:id/{*id}", /parameter name "id" is used twice/],
    ["/a b", /character U\+0020 is not allowed in a path/],
    ["/a?b", /character "\?" \(U\+003F\) is not allowed/],
    ["/a#b", /character "#" \(U\+0023\) is not allowed/],
    ["/a\tb", /character U\+0009 is not allowed/],
    ["/a\u0000", /character U\+0000 is not allowed/],
    ["/a\u007f", /character U\+007F is not allowed/],
    ["/café", /character U\+00E9 is not allowed in a path \(percent-encode it\)/],
    ["/a\\b", /character "\\" \(U\+005C\) is not allowed/],
    ["/a%2", /"%" must be followed by two hex digits/],
    ["/a%zz", /"%" must be followed by two hex digits/],
    ["/a/./b", /dot segment "\."/],
    ["/a/..", /dot segment "\.\."/],
  ];
  for (const [path, message] of cases) {
    const error = routeError(() => normalizePattern(path));
    assert.match(error.message, message, JSON.stringify(path));
    assert.ok(error.message.includes(JSON.stringify(path)), `message names the path: ${error.message}`);
    // Router.add refuses it the same way and stays usable
    const router = new Router<number>();
    assert.throws(() => router.add("GET", path, 1), RouteError, JSON.stringify(path));
    assert.deepEqual(router.routes(), []);
  }
});

test("non-string paths are refused", () => {
  assert.throws(() => normalizePattern(42 as unknown as string), /route path must be a string, got number/);
});

test("duplicate method + path is refused, also when only parameter names differ", () => {
  const router = new Router<number>();
  router.add("GET", "/users", 1);
  router.add("GET", "/users/{id}", 2);
  router.add("GET", "/files/{*path}", 3);
  assert.match(routeError(() => router.add("GET", "/users", 9)).message, /^duplicate route GET \/users: GET \/users already matches the same paths$/);
  assert.match(
    routeError(() => router.add("GET", "/users/{uid}", 9)).message,
    /^duplicate route GET \/users\/\{uid\}: GET \/users\/\{id\} already matches the same paths$/,
  );
  assert.match(
    routeError(() => router.add("GET", "/users/:id", 9)).message,
    /^duplicate route GET \/users\/:id \(\/users\/\{id\}\): GET \/users\/\{id\} already/,
  );
  assert.match(routeError(() => router.add("GET", "/files/*", 9)).message, /duplicate route GET \/files\/\* \(\/files\/\{\*\}\): GET \/files\/\{\*path\}/);
  // the failed adds left nothing behind
  assert.equal(router.routes().length, 3);
  assert.equal(router.find("GET", "/users/7")?.value, 2);
  // same path under another method is fine
  router.add("POST", "/users", 4);
  router.add("DELETE", "/users/{id}", 5);
  assert.equal(router.find("DELETE", "/users/7")?.value, 5);
});

test("same shape with different parameter names is refused across methods", () => {
  const router = new Router<number>();
  router.add("GET", "/users/{id}", 1);
  const error = routeError(() => router.add("DELETE", "/users/{uid}", 2));
  assert.match(error.message, /DELETE \/users\/\{uid\}/);
  assert.match(error.message, /GET \/users\/\{id\}/);
  assert.match(error.message, /use the same names at the same positions/);
  assert.equal(router.find("DELETE", "/users/1"), null);
  assert.deepEqual(router.allowedMethods("/users/1"), ["GET"]);

  router.add("GET", "/a/{x}/b/{*rest}", 3);
  assert.match(routeError(() => router.add("PUT", "/a/{x}/b/{*tail}", 4)).message, /PUT \/a\/\{x\}\/b\/\{\*tail\}.*GET \/a\/\{x\}\/b\/\{\*rest\}/);
  assert.match(routeError(() => router.add("PUT", "/a/:y/b/*rest", 4)).message, /PUT \/a\/:y\/b\/\*rest \(\/a\/\{y\}\/b\/\{\*rest\}\)/);
  // different shapes may use different names at the same position
  router.add("GET", "/users/{uid}/posts", 5);
  router.add("PUT", "/a/{x}/b/{*rest}", 6);
  assert.deepEqual({ ...router.find("GET", "/users/9/posts")?.params }, { uid: "9" });
  assert.deepEqual({ ...router.find("GET", "/users/9")?.params }, { id: "9" });
});

test("method must be an upper-case RFC 9110 token", () => {
  const router = new Router<number>();
  for (const method of ["", "GET POST", "GE(T", "GET\r\n", "ÄÖ", "{GET}", "G/T"]) {
    assert.match(routeError(() => router.add(method, "/x", 1)).message, /invalid HTTP method .*: it must be an RFC 9110 token/, JSON.stringify(method));
  }
  assert.match(routeError(() => router.add("get", "/x", 1)).message, /invalid HTTP method "get": write it in upper case/);
  for (const method of ["GET", "M-SEARCH", "PROPFIND", "X_CUSTOM!#$%&'*+.^`|~1"]) router.add(method, "/x", 1);
  assert.equal(router.find("M-SEARCH", "/x")?.value, 1);
  assert.equal(router.routes().length, 4);
});
