// Type-level tests: checked by `tsc` in `npm test`. Each `@ts-expect-error` line must fail to
// compile; if inference broke so that it compiled, tsc reports the unused directive.
import assert from "node:assert/strict";
import { it } from "node:test";
import { extractor, header, json, optional, path, query, route, t, text, type Static } from "../../lib/index.js";

const User = t.object({ email: t.string({ email: true }), age: t.optional(t.integer()) });

export const typed = [
  route.get("/a/{id}", [path("id", t.u64()), header("x-h"), optional(header("x-o"))], (id, h, o) => {
    const n: number = id;
    const s: string = h;
    const maybe: string | undefined = o;
    // @ts-expect-error an optional header may be undefined
    const notMaybe: string = o;
    // @ts-expect-error id is a number, not a string
    const wrong: string = id;
    return { n, s, maybe, notMaybe, wrong };
  }),

  route.post("/u", [json(User)], (u) => {
    const email: string = u.email;
    const age: number | undefined = u.age;
    // @ts-expect-error age is optional
    const sure: number = u.age;
    // @ts-expect-error no such field
    void u.nope;
    return { email, age, sure };
  }),

  // @ts-expect-error the handler's parameter type disagrees with the extractor (number vs string)
  route.get("/b/{id}", [path("id", t.u64())], (id: string) => id),

  // @ts-expect-error more parameters than extractors
  route.get("/c", [header("a")], (a: string, b: string) => a + b),

  route.post("/f", [header("a"), text()], (a, body) => a + body),

  route.get("/g", { tag: "x", summary: "meta form" }, [query(t.object({ page: t.integer() }))], (q) => {
    const page: number = q.page;
    return page;
  }),

  route.get("/h", [extractor("n", () => 1).map((n) => String(n))], (s) => {
    const str: string = s;
    return str;
  }),
];

const e = extractor("x", () => 1);
// 16 extractors compile...
export const sixteen = route.get("/16", [e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e], (...xs) => xs.length);
// ...17 do not.
// @ts-expect-error at most 16 extractors
export const seventeen = () => route.get("/17", [e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e, e], () => 1);

// Also refused at run time (see the test below), for callers without types.
const bodyFirst = () =>
  // @ts-expect-error a body extractor must be last
  route.post("/d", [json(), header("a")], () => 1);
const textFirst = () =>
  // @ts-expect-error a body extractor must be last (text)
  route.post("/e", [text(), header("a"), header("b")], () => 1);

type U = Static<typeof User>;
export const u: U = { email: "a@b.co" };
// @ts-expect-error email must be a string
export const badU: U = { email: 1 };

it("type-level tests compiled (see tsc in npm test)", () => {
  assert.equal(typed.length, 7);
  assert.throws(bodyFirst, /must be the last argument/);
  assert.throws(textFirst, /must be the last argument/);
  assert.throws(seventeen, /at most 16/);
});
