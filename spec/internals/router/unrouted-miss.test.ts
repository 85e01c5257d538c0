// allowedMethods answers a miss (the 404) from one table of every route, whatever the method:
// the same answers as asking each method's table, without walking them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Router } from "../../../lib/router/index.js";

const ROUTES: Array<[string, string]> = [
  ["GET", "/users/{id}"],
  ["PUT", "/users/{id}"],
  ["POST", "/users"],
  ["DELETE", "/users/{id}/posts/{post}"],
  ["PATCH", "/files/{*path}"],
  ["GET", "/files/readme"],
  ["QUERY", "/search/{term}/x"],
  ["OPTIONS", "/a/{b}/c"],
  ["GET", "/a/b/{c}"],
];

/** What each method's table says on its own: the methods whose one-route router routes `path`. */
function reference(path: string): string[] {
  const methods = new Set<string>();
  for (const [method, pattern] of ROUTES) {
    const one = new Router<null>();
    one.add(method, pattern, null);
    if (one.allowedMethods(path).length > 0) methods.add(method);
  }
  return [...methods].sort();
}

test("a miss in every method's table is a miss in the all-methods table, and a hit lists every method", () => {
  const router = new Router<null>();
  for (const [method, pattern] of ROUTES) router.add(method, pattern, null);
  const paths = [
    "/", "/users", "/users/", "/users/1", "/users/1/", "/users/1/posts", "/users/1/posts/2", "/users/1/posts/2/3",
    "/files", "/files/", "/files/readme", "/files/a/b", "/search/q/x", "/search/q", "/search//x", "/a/b/c", "/a/x/c",
    "/a/b/x", "/a/b", "/does/not/exist", "users", "", "/users/" + "x".repeat(300), "/users/%zz",
  ];
  for (const path of paths) assert.deepEqual(router.allowedMethods(path), reference(path), path);
});

test("a path no method routes is answered without walking each method's table", () => {
  const router = new Router<null>();
  for (const [method, pattern] of ROUTES) router.add(method, pattern, null);
  // The per-method walk iterates the router's Map of tables; a 404 must not get that far.
  const proto = Map.prototype as unknown as Record<symbol, unknown>;
  const iterate = proto[Symbol.iterator];
  let iterated = 0;
  proto[Symbol.iterator] = function (this: Map<unknown, unknown>) {
    iterated++;
    return (iterate as () => unknown).call(this);
  };
  try {
    assert.deepEqual(router.allowedMethods("/does/not/exist"), []);
    assert.deepEqual(router.allowedMethods("/users/1/posts"), []);
  } finally {
    proto[Symbol.iterator] = iterate;
  }
  assert.equal(iterated, 0);
  assert.deepEqual(router.allowedMethods("/users/1"), ["GET", "PUT"]);
});
