import { test } from "node:test";
import assert from "node:assert/strict";
import { BadPathError, Router } from "../../../lib/router/index.js";

/** Route set mixing static, parameter and wildcard routes at several depths. */
const ROUTES = [
  "/users/me",
  "/users/{id}",
  "/users/{id}/posts",
  "/users/me/settings",
  "/files/{*path}",
  "/{*all}",
  "/users/{id}/posts/{postId}",
  "/{section}/about",
] as const;

/** Request path → expected pattern and params (null: no route). */
const EXPECTED: Array<[string, string | null, Record<string, string>?]> = [
  ["/users/me", "/users/me", {}],
  ["/users/me/settings", "/users/me/settings", {}],
  ["/users/me/posts", "/users/{id}/posts", { id: "me" }], // static "me" fails deeper: backtrack to {id}
  ["/users/42", "/users/{id}", { id: "42" }],
  ["/users/42/posts", "/users/{id}/posts", { id: "42" }],
  ["/users/42/posts/7", "/users/{id}/posts/{postId}", { id: "42", postId: "7" }],
  ["/users/me/posts/7", "/users/{id}/posts/{postId}", { id: "me", postId: "7" }],
  ["/users/me/settings/x", "/{*all}", { all: "users/me/settings/x" }],
  ["/users/42/settings", "/{*all}", { all: "users/42/settings" }],
  ["/users", "/{*all}", { all: "users" }],
  ["/users/", "/{*all}", { all: "users/" }], // a parameter is never empty
  ["/users/about", "/users/{id}", { id: "about" }], // static "users" beats {section}
  ["/files/about", "/files/{*path}", { path: "about" }],
  ["/docs/about", "/{section}/about", { section: "docs" }],
  ["/docs/about/", "/{*all}", { all: "docs/about/" }],
  ["/about", "/{*all}", { all: "about" }],
  ["/files/", "/files/{*path}", { path: "" }],
  ["/files", "/{*all}", { all: "files" }],
  ["/files/a/b/c", "/files/{*path}", { path: "a/b/c" }],
  ["/files/a%2Fb", "/files/{*path}", { path: "a/b" }],
  ["/", "/{*all}", { all: "" }],
  ["/users/me/", "/{*all}", { all: "users/me/" }],
  ["/users/42/posts/", "/{*all}", { all: "users/42/posts/" }],
  ["/users/42/posts/7/8", "/{*all}", { all: "users/42/posts/7/8" }],
  ["/users//posts", "/{*all}", { all: "users//posts" }],
  ["/Users/me", "/{*all}", { all: "Users/me" }],
  ["/users/%6De", "/users/{id}", { id: "me" }], // static segments are matched raw
  ["/users/caf%C3%A9/posts", "/users/{id}/posts", { id: "café" }],
  ["/x/about", "/{section}/about", { section: "x" }],
  ["/users/me/settings/", "/{*all}", { all: "users/me/settings/" }],
  ["", null],
  ["users/me", null],
];

function describeMatch(router: Router<string>, path: string): string {
  const match = router.find("GET", path);
  if (match === null) return "null";
  assert.equal(match.value, match.pattern, "value travels with its route");
  return match.pattern + " " + JSON.stringify(match.params);
}

function expectedDescription(pattern: string | null, params: Record<string, string> | undefined): string {
  return pattern === null ? "null" : pattern + " " + JSON.stringify(params ?? {});
}

/** Heap's algorithm: calls `visit` with every permutation of `items` (same array, reordered). */
function forEachPermutation<T>(items: T[], visit: (order: readonly T[]) => void): number {
  const a = items.slice();
  const c = new Array<number>(a.length).fill(0);
  let count = 1;
  visit(a);
  let i = 1;
  while (i < a.length) {
    const ci = c[i] ?? 0;
    if (ci < i) {
      const j = i % 2 === 0 ? 0 : ci;
      const tmp = a[j] as T;
      a[j] = a[i] as T;
      a[i] = tmp;
      visit(a);
      count++;
      c[i] = ci + 1;
      i = 1;
    } else {
      c[i] = 0;
      i++;
    }
  }
  return count;
}

test("precedence table holds for the declaration order given", () => {
  const router = new Router<string>();
  for (const route of ROUTES) router.add("GET", route, route);
  for (const [path, pattern, params] of EXPECTED) {
    assert.equal(describeMatch(router, path), expectedDescription(pattern, params), `GET ${JSON.stringify(path)}`);
  }
});

test("precedence is independent of declaration order (every permutation)", () => {
  const expected = EXPECTED.map(([, pattern, params]) => expectedDescription(pattern, params));
  const permutations = forEachPermutation([...ROUTES], (order) => {
    const router = new Router<string>();
    for (const route of order) router.add("GET", route, route);
    for (let k = 0; k < EXPECTED.length; k++) {
      const path = (EXPECTED[k] as [string, string | null])[0];
      const got = describeMatch(router, path);
      if (got !== expected[k]) {
        assert.fail(`order [${order.join(", ")}]: GET ${JSON.stringify(path)} gave ${got}, expected ${expected[k]}`);
      }
    }
  });
  assert.equal(permutations, 40320);
});

test("static beats parameter beats wildcard at each segment, with backtracking at depth", () => {
  const router = new Router<string>();
  for (const route of ["/a/{x}/c/{*rest}", "/a/b/{y}/d", "/a/{x}/c/d", "/a/b/c/{z}", "/{*all}"]) router.add("GET", route, route);
  assert.equal(router.find("GET", "/a/b/c/d")?.pattern, "/a/b/c/{z}"); // b (static) first, then c (static)
  assert.equal(router.find("GET", "/a/b/x/d")?.pattern, "/a/b/{y}/d");
  assert.equal(router.find("GET", "/a/b/c/e")?.pattern, "/a/b/c/{z}");
  assert.equal(router.find("GET", "/a/q/c/d")?.pattern, "/a/{x}/c/d");
  assert.equal(router.find("GET", "/a/q/c/e/f")?.pattern, "/a/{x}/c/{*rest}");
  assert.deepEqual({ ...router.find("GET", "/a/b/c/e/f")?.params }, { x: "b", rest: "e/f" });
  assert.equal(router.find("GET", "/a/b/c")?.pattern, "/{*all}");
});

test("radix edges split mid-segment keep segment semantics", () => {
  const router = new Router<string>();
  for (const route of ["/ab/{x}", "/abc/{y}", "/a/{z}", "/{w}/q"]) router.add("GET", route, route);
  assert.equal(router.find("GET", "/ab/1")?.pattern, "/ab/{x}");
  assert.equal(router.find("GET", "/abc/1")?.pattern, "/abc/{y}");
  assert.equal(router.find("GET", "/a/1")?.pattern, "/a/{z}");
  assert.equal(router.find("GET", "/abcd/q")?.pattern, "/{w}/q");
  assert.equal(router.find("GET", "/ab/q")?.pattern, "/ab/{x}");
  assert.equal(router.find("GET", "/abcd/1"), null);
  assert.equal(router.find("GET", "/ab"), null);
});

// ---- randomized cross-check against a naive reference matcher ----

type Seg = { kind: "static"; text: string } | { kind: "param"; name: string } | { kind: "wildcard"; name: string };

function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Naive reference: among matching routes, the greatest per-segment rank (static 2, param 1, wildcard 0). */
function referenceFind(routes: Seg[][], path: string, maxParamLength: number): { index: number; params: Record<string, string> } | null {
  if (!path.startsWith("/")) return null;
  const parts = path.slice(1).split("/");
  let best: { index: number; ranks: number[]; params: Record<string, string> } | null = null;
  routes.forEach((route, index) => {
    const ranks: number[] = [];
    const params: Record<string, string> = {};
    for (let i = 0; i < route.length; i++) {
      const seg = route[i] as Seg;
      if (seg.kind === "wildcard") {
        if (i >= parts.length) return;
        params[seg.name] = decodeURIComponent(parts.slice(i).join("/"));
        ranks.push(0);
        break;
      }
      const part = parts[i];
      if (part === undefined) return;
      if (seg.kind === "static") {
        if (part !== seg.text) return;
        ranks.push(2);
      } else {
        if (part.length === 0 || part.length > maxParamLength) return;
        params[seg.name] = decodeURIComponent(part);
        ranks.push(1);
      }
      if (i === route.length - 1 && parts.length !== route.length) return;
    }
    if (best === null || compareRanks(ranks, best.ranks) > 0) best = { index, ranks, params };
  });
  const found = best as { index: number; params: Record<string, string> } | null;
  return found === null ? null : { index: found.index, params: found.params };
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

function toPattern(route: Seg[]): string {
  return "/" + route.map((s) => (s.kind === "static" ? s.text : s.kind === "param" ? `{${s.name}}` : `{*${s.name}}`)).join("/");
}

test("randomized: matches a naive specificity reference, including maxParamLength", () => {
  const rand = mulberry32(20260522);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const statics = ["a", "ab", "abc", "b", "ba", ""];
  const maxParamLength = 3;
  const routes: Seg[][] = [];
  const seen = new Set<string>();
  while (routes.length < 40) {
    const depth = 1 + Math.floor(rand() * 4);
    const route: Seg[] = [];
    for (let i = 0; i < depth; i++) {
      const last = i === depth - 1;
      const r = rand();
      if (last && i > 0 && r < 0.15) route.push({ kind: "wildcard", name: "rest" });
      else if (r < 0.3) route.push({ kind: "param", name: `p${i}` });
      else {
        const text = pick(statics);
        if (text === "" && !last) continue; // "//" is not a valid route
        route.push({ kind: "static", text });
      }
    }
    if (route.length === 0) continue;
    const shape = toPattern(route).replace(/\{[^}*]*\}/g, "{}");
    if (seen.has(shape)) continue;
    seen.add(shape);
    routes.push(route);
  }
  const router = new Router<number>({ maxParamLength });
  routes.forEach((route, index) => router.add("GET", toPattern(route), index));

  const values = ["a", "ab", "abc", "b", "ba", "", "x", "abcd", "%61", "a%2Fb", "zzzz"];
  let matched = 0;
  let tooLong = 0;
  for (let n = 0; n < 4000; n++) {
    const depth = 1 + Math.floor(rand() * 5);
    let path = "";
    for (let i = 0; i < depth; i++) path += "/" + pick(values);
    const want = referenceFind(routes, path, maxParamLength);
    let got: ReturnType<Router<number>["find"]> = null;
    let error: unknown = null;
    try {
      got = router.find("GET", path);
    } catch (e) {
      error = e;
    }
    if (want !== null) {
      matched++;
      assert.equal(error, null, `GET ${path}`);
      assert.equal(got?.pattern, toPattern(routes[want.index] as Seg[]), `GET ${path}`);
      assert.deepEqual({ ...got?.params }, want.params, `GET ${path}`);
    } else if (referenceFind(routes, path, Infinity) !== null) {
      tooLong++;
      assert.ok(error instanceof BadPathError && error.reason === "param_too_long", `GET ${path} should be param_too_long`);
    } else {
      assert.equal(error, null, `GET ${path}`);
      assert.equal(got, null, `GET ${path}`);
    }
  }
  // The generator must exercise all three outcomes.
  assert.ok(matched > 200 && tooLong > 200 && 4000 - matched - tooLong > 200, `matched ${matched}, too long ${tooLong}`);
});
