import { test } from "node:test";
import assert from "node:assert/strict";
import { BadPathError, Router } from "../../../lib/router/index.js";

test("allowedMethods lists the methods whose routes match, sorted", () => {
  const router = new Router<string>();
  router.add("PUT", "/users/{id}", "put");
  router.add("GET", "/users/{id}", "get");
  router.add("DELETE", "/users/{id}", "delete");
  router.add("GET", "/users", "list");
  router.add("POST", "/users", "create");
  router.add("GET", "/files/{*path}", "files");
  router.add("OPTIONS", "/{*any}", "preflight");
  assert.deepEqual(router.allowedMethods("/users/1"), ["DELETE", "GET", "OPTIONS", "PUT"]);
  assert.deepEqual(router.allowedMethods("/users"), ["GET", "OPTIONS", "POST"]);
  assert.deepEqual(router.allowedMethods("/files/a/b"), ["GET", "OPTIONS"]);
  assert.deepEqual(router.allowedMethods("/nothing"), ["OPTIONS"]);
  assert.deepEqual(router.allowedMethods("nothing"), []);
  // structure only: a too-long or badly encoded value still counts as this route's path
  assert.deepEqual(router.allowedMethods("/users/" + "x".repeat(500)), ["DELETE", "GET", "OPTIONS", "PUT"]);
  assert.deepEqual(router.allowedMethods("/users/%zz"), ["DELETE", "GET", "OPTIONS", "PUT"]);
  assert.deepEqual(new Router().allowedMethods("/"), []);
});

test("routes() lists every route in registration order with canonical patterns", () => {
  const router = new Router<{ id: number }>();
  const values = [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }];
  router.add("GET", "/b/:x", values[0] as { id: number });
  router.add("POST", "/a", values[1] as { id: number });
  router.add("GET", "/c/{y}/*", values[2] as { id: number });
  router.add("GET", "/a", values[3] as { id: number });
  const listed = router.routes();
  assert.deepEqual(
    listed.map((r) => [r.method, r.pattern, r.paramNames]),
    [
      ["GET", "/b/{x}", ["x"]],
      ["POST", "/a", []],
      ["GET", "/c/{y}/{*}", ["y", "*"]],
      ["GET", "/a", []],
    ],
  );
  listed.forEach((r, i) => assert.equal(r.value, values[i], "values are the registered objects"));
  // callers cannot corrupt the router through the listing
  listed[0]?.paramNames.push("evil");
  listed.pop();
  assert.deepEqual(router.routes()[0]?.paramNames, ["x"]);
  assert.equal(router.routes().length, 4);
  assert.deepEqual({ ...router.find("GET", "/b/1")?.params }, { x: "1" });
});

test("params objects are null-prototype and independent between calls", () => {
  const router = new Router<string>();
  router.add("GET", "/users/{id}/posts/{postId}", "p");
  router.add("GET", "/files/{*path}", "f");
  const a = router.find("GET", "/users/1/posts/2");
  const b = router.find("GET", "/users/3/posts/4");
  assert.ok(a !== null && b !== null);
  assert.equal(Object.getPrototypeOf(a.params), null);
  assert.notEqual(a.params, b.params);
  assert.notEqual(a, b);
  assert.deepEqual({ ...a.params }, { id: "1", postId: "2" });
  assert.deepEqual({ ...b.params }, { id: "3", postId: "4" });
  a.params["id"] = "changed";
  assert.equal(router.find("GET", "/users/1/posts/2")?.params["id"], "1");
  assert.deepEqual(Object.keys(a.params), ["id", "postId"]);
  // no inherited keys can be read through params
  const f = router.find("GET", "/files/x");
  assert.equal(Object.getPrototypeOf(f?.params), null);
  assert.equal(f?.params["toString"], undefined);
  assert.equal("constructor" in (f?.params ?? {}), false);
  // a hostile value is only a value
  const hostile = router.find("GET", "/users/__proto__/posts/constructor");
  assert.equal(hostile?.params["id"], "__proto__");
  assert.equal(Object.getPrototypeOf(hostile?.params), null);
});

test("static matches are shared, frozen and allocation-free", () => {
  const router = new Router<string>();
  router.add("GET", "/health", "h");
  router.add("GET", "/users/{id}", "u");
  router.add("POST", "/health", "p");
  const first = router.find("GET", "/health");
  const second = router.find("GET", "/health");
  assert.ok(first !== null);
  assert.equal(first, second, "same object every time");
  assert.equal(first.pattern, "/health");
  assert.equal(first.value, "h");
  assert.ok(Object.isFrozen(first));
  assert.ok(Object.isFrozen(first.params));
  assert.equal(Object.getPrototypeOf(first.params), null);
  assert.deepEqual(Object.keys(first.params), []);
  assert.throws(() => {
    (first.params as Record<string, string>)["x"] = "y";
  }, TypeError);
  assert.notEqual(router.find("POST", "/health"), first);
  assert.equal(router.find("POST", "/health")?.value, "p");
});

test("200 routes: every route finds itself, with its own params", () => {
  const router = new Router<number>();
  const expectations: Array<[string, number, Record<string, string>]> = [];
  for (let i = 0; i < 200; i++) {
    const group = `g${i % 10}`;
    switch (i % 5) {
      case 0:
        router.add("GET", `/api/${group}/r${i}`, i);
        expectations.push([`/api/${group}/r${i}`, i, {}]);
        break;
      case 1:
        router.add("GET", `/api/${group}/r${i}/{id}`, i);
        expectations.push([`/api/${group}/r${i}/x${i}`, i, { id: `x${i}` }]);
        break;
      case 2:
        router.add("POST", `/api/${group}/r${i}/{id}/items/{item}`, i);
        expectations.push([`/api/${group}/r${i}/a/items/b${i}`, i, { id: "a", item: `b${i}` }]);
        break;
      case 3:
        router.add("GET", `/assets/r${i}/{*path}`, i);
        expectations.push([`/assets/r${i}/css/${i}.css`, i, { path: `css/${i}.css` }]);
        break;
      default:
        router.add("GET", `/v${i}/{org}/repos`, i);
        expectations.push([`/v${i}/o${i}/repos`, i, { org: `o${i}` }]);
    }
  }
  assert.equal(router.routes().length, 200);
  for (const [path, value, params] of expectations) {
    const method = value % 5 === 2 ? "POST" : "GET";
    const match = router.find(method, path);
    assert.equal(match?.value, value, path);
    assert.deepEqual({ ...match?.params }, params, path);
  }
  // near misses
  assert.equal(router.find("GET", "/api/g0/r0/"), null);
  assert.equal(router.find("GET", "/api/g0/r1"), null);
  assert.equal(router.find("GET", "/api/g1/r0"), null);
  assert.equal(router.find("GET", "/api/g2/r2/a/items/b2"), null);
  assert.equal(router.find("GET", "/assets/r3"), null);
  assert.equal(router.find("GET", "/v4//repos"), null);
  assert.equal(router.find("GET", "/v400/o/repos"), null);
});

test("a deep path against a wide tree is bounded work", () => {
  const router = new Router<number>();
  for (let i = 0; i < 50; i++) router.add("GET", "/{a}/{b}/{c}/{d}/{e}/x" + i, i);
  router.add("GET", "/{a}/{*rest}", -1);
  const path = "/" + Array.from({ length: 2000 }, () => "a").join("/");
  const start = process.hrtime.bigint();
  for (let n = 0; n < 200; n++) assert.equal(router.find("GET", path)?.value, -1);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  assert.ok(ms < 2000, `200 lookups took ${ms} ms`);
});

test("find on an unknown method or an empty router is null, never an exception", () => {
  const router = new Router<number>();
  assert.equal(router.find("GET", "/"), null);
  router.add("GET", "/x/{id}", 1);
  assert.equal(router.find("BREW", "/x/1"), null);
  assert.equal(router.find("GET", "/y/1"), null);
  assert.ok(new BadPathError("bad_encoding", "id") instanceof Error);
});
