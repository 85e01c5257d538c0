import { test } from "node:test";
import assert from "node:assert/strict";
import { Router, normalizePattern } from "../../../lib/router/index.js";

test("normalizePattern gives the canonical {name} / {*name} form", () => {
  const cases: Array<[string, string, string[]]> = [
    ["/", "/", []],
    ["/users", "/users", []],
    ["/users/", "/users/", []],
    ["/users/{id}", "/users/{id}", ["id"]],
    ["/users/:id", "/users/{id}", ["id"]],
    ["/users/:id/posts/{postId}", "/users/{id}/posts/{postId}", ["id", "postId"]],
    ["/files/{*path}", "/files/{*path}", ["path"]],
    ["/files/*path", "/files/{*path}", ["path"]],
    ["/files/*", "/files/{*}", ["*"]],
    ["/files/{*}", "/files/{*}", ["*"]],
    ["/{*all}", "/{*all}", ["all"]],
    ["/a/:b/*rest", "/a/{b}/{*rest}", ["b", "rest"]],
    ["/v1/it's~ok;x=1,y@z!$&()+-._", "/v1/it's~ok;x=1,y@z!$&()+-._", []],
    ["/caf%C3%A9", "/caf%C3%A9", []],
  ];
  for (const [input, pattern, paramNames] of cases) {
    assert.deepEqual(normalizePattern(input), { pattern, paramNames }, input);
    // the canonical form is itself accepted and stable
    assert.deepEqual(normalizePattern(pattern), { pattern, paramNames }, pattern);
  }
});

test("normalizePattern returns fresh arrays", () => {
  const a = normalizePattern("/a/{x}");
  a.paramNames.push("y");
  assert.deepEqual(normalizePattern("/a/{x}").paramNames, ["x"]);
});

test("colon and brace parameters are the same route", () => {
  const colon = new Router<string>();
  colon.add("GET", "/users/:id/posts/:postId", "colon");
  const braces = new Router<string>();
  braces.add("GET", "/users/{id}/posts/{postId}", "braces");
  for (const path of ["/users/1/posts/2", "/users/a%20b/posts/x", "/users/1/posts", "/users//posts/2"]) {
    const a = colon.find("GET", path);
    const b = braces.find("GET", path);
    assert.equal(a?.pattern, b?.pattern, path);
    assert.deepEqual(a && { ...a.params }, b && { ...b.params }, path);
  }
  assert.equal(colon.find("GET", "/users/1/posts/2")?.pattern, "/users/{id}/posts/{postId}");
  // declaring both spellings is a duplicate
  assert.throws(() => colon.add("GET", "/users/{id}/posts/{postId}", "again"), /duplicate route/);
});

test("*rest, {*rest}, * and {*} wildcard spellings", () => {
  for (const [route, name] of [["/static/*rest", "rest"], ["/static/{*rest}", "rest"], ["/static/*", "*"], ["/static/{*}", "*"]] as const) {
    const router = new Router<number>();
    router.add("GET", route, 1);
    const match = router.find("GET", "/static/css/site.css");
    assert.equal(match?.pattern, name === "*" ? "/static/{*}" : "/static/{*rest}", route);
    assert.equal(match?.params[name], "css/site.css", route);
    assert.equal(router.find("GET", "/static")?.pattern, undefined, route);
  }
});

test("wildcard edge cases", () => {
  const router = new Router<string>();
  router.add("GET", "/files/{*path}", "files");
  router.add("GET", "/files/special", "special");
  router.add("GET", "/files/{name}/meta", "meta");
  const value = (path: string): [string, string] | null => {
    const m = router.find("GET", path);
    return m === null ? null : [m.value, m.params["path"] ?? m.params["name"] ?? ""];
  };
  assert.deepEqual(value("/files/"), ["files", ""]); // empty tail is allowed
  assert.equal(value("/files"), null); // but the prefix slash is required
  assert.deepEqual(value("/files/special"), ["special", ""]);
  assert.deepEqual(value("/files/special/"), ["files", "special/"]);
  assert.deepEqual(value("/files/x/meta"), ["meta", "x"]);
  assert.deepEqual(value("/files/x/meta/y"), ["files", "x/meta/y"]);
  assert.deepEqual(value("/files//"), ["files", "/"]); // the tail is taken raw, slashes included
  assert.deepEqual(value("/files/a%2Fb/c"), ["files", "a/b/c"]);
  assert.deepEqual(value("/files/..%2F..%2Fetc"), ["files", "../../etc"]); // decoded once: callers must treat it as data

  const root = new Router<string>();
  root.add("GET", "/{*all}", "all");
  assert.equal(root.find("GET", "/")?.params["all"], "");
  assert.equal(root.find("GET", "/a/b")?.params["all"], "a/b");
  assert.equal(root.find("GET", ""), null);
  assert.equal(root.find("GET", "*"), null);
});

test("matching is on the raw path: static text not decoded, // and trailing slash significant", () => {
  const router = new Router<string>();
  router.add("GET", "/users", "users");
  router.add("GET", "/users/{id}/posts", "posts");
  router.add("GET", "/caf%C3%A9", "cafe");
  assert.equal(router.find("GET", "/users")?.value, "users");
  assert.equal(router.find("GET", "/users/"), null);
  assert.equal(router.find("GET", "//users"), null);
  assert.equal(router.find("GET", "/%75sers"), null); // %75 is "u": static text is not decoded
  assert.equal(router.find("GET", "/USERS"), null);
  assert.equal(router.find("GET", "/users/1/posts")?.value, "posts");
  assert.equal(router.find("GET", "/users//1/posts"), null);
  assert.equal(router.find("GET", "/users/1//posts"), null);
  assert.equal(router.find("GET", "/users/1/posts/"), null);
  assert.equal(router.find("GET", "/caf%C3%A9")?.value, "cafe");
  assert.equal(router.find("GET", "/café"), null);
  assert.equal(router.find("GET", "/users?x=1"), null, "the caller strips the query string");
});

test("trailing-slash routes are distinct routes", () => {
  const router = new Router<string>();
  router.add("GET", "/users", "no-slash");
  router.add("GET", "/users/", "slash");
  router.add("GET", "/users/{id}", "id");
  router.add("GET", "/users/{id}/", "id-slash");
  assert.equal(router.find("GET", "/users")?.value, "no-slash");
  assert.equal(router.find("GET", "/users/")?.value, "slash");
  assert.equal(router.find("GET", "/users/1")?.value, "id");
  assert.equal(router.find("GET", "/users/1/")?.value, "id-slash");
  assert.equal(router.find("GET", "/users/1//"), null);
});

test("methods have separate trees and are matched exactly", () => {
  const router = new Router<string>();
  router.add("GET", "/things/{id}", "get");
  router.add("DELETE", "/things/{id}", "delete");
  router.add("PURGE", "/things/{id}", "purge");
  assert.equal(router.find("GET", "/things/1")?.value, "get");
  assert.equal(router.find("DELETE", "/things/1")?.value, "delete");
  assert.equal(router.find("PURGE", "/things/1")?.value, "purge");
  assert.equal(router.find("POST", "/things/1"), null);
  assert.equal(router.find("get", "/things/1"), null);
});
