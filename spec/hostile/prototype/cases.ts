// Prototype keys in JSON, form, query, header, cookie and TOON input: refused with a uniform 4xx,
// or accepted with the key kept as plain data; never a polluted Object.prototype (the harness
// checks after every case) and never a 5xx.
import assert from "node:assert/strict";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";
import { csrfCookie, validCsrf } from "../csrf/tokens.js";

const json = (target: string, body: string): Buffer => http("POST", target, [["Content-Type", "application/json"]], body);
const USER = '"email":"a@example.com","password":"correct horse"';

const jsonBodies: string[] = [
  `{"__proto__":{"polluted":true},${USER}}`,
  `{"constructor":{"prototype":{"polluted":true}},${USER}}`,
  `{${USER},"nested":{"__proto__":{"polluted":true}}}`,
  `{"\\u005f_proto__":{"polluted":true},${USER}}`,
  `{"__pro\\u0074o__":{"polluted":true},${USER}}`,
  `{"__proto__":{"email":"admin@example.com"},"password":"correct horse"}`,
  `{"__proto__":null,${USER}}`,
  `{"prototype":{"polluted":true},${USER}}`,
  '[{"__proto__":{"polluted":true}}]',
  '{"a":[{"b":{"__proto__":{"polluted":true}}}]}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"__proto__":{"__proto__":{"polluted":true}}}',
];

/** Accepted or refused, the answer is never a 5xx; pollution is checked by the harness. */
const anyNon5xx = (a: Answer): void => assert.ok(a.status < 500, `status ${a.status}`);
const okOrRefused = (a: Answer): void => assert.ok([200, 400, 422].includes(a.status), `status ${a.status}`);
const form = (target: string, body: string, app?: "kitchen"): Buffer =>
  app === "kitchen"
    ? http("POST", target, [["Content-Type", "application/x-www-form-urlencoded"]], body)
    : http("POST", target, [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", csrfCookie(validCsrf)], ["X-CSRF-Token", validCsrf]], body);

const formBodies = ["__proto__[polluted]=1&message=a", "constructor[prototype][polluted]=1&message=a", "__proto__=x&message=a", "message=a&__proto__.polluted=1", "message[__proto__][polluted]=1", "message=a&message=b&__proto__=c"];

const toonBodies: Array<[string, string]> = [
  ["__proto__ key", "__proto__:\n  polluted: true\nname: a"],
  ["constructor.prototype keys", "constructor:\n  prototype:\n    polluted: true\nname: a"],
  ["a quoted __proto__ key", '"__proto__":\n  polluted: true\nname: a'],
  ["__proto__ inside a tabular header", "rows[1]{__proto__,name}:\n  x,a\nname: a"],
  ["__proto__ as a list item key", "items[1]:\n  - __proto__:\n      polluted: true\nname: a"],
  ["a dotted __proto__.polluted key", "__proto__.polluted: true\nname: a"],
];

export const prototype: HostileClass = {
  name: "prototype",
  cases: [
    ...jsonBodies.map((b, i): HostileCase => ({ name: `JSON body #${i + 1}: ${b.slice(0, 40)}`, raw: json("/users", b), expect: b.startsWith('{"prototype"') ? [201, 400, 422] : [400, 422] })),
    { name: "JSON report with a __proto__ member", raw: json("/api/v1/reports", '{"kind":"usage","month":"2024-05","__proto__":{"fail":true}}'), expect: [400, 422] },
    { name: "JSON report with a constructor member", raw: json("/api/v1/reports", '{"kind":"usage","month":"2024-05","constructor":{"prototype":{"polluted":true}}}'), expect: [400, 422] },
    ...formBodies.map((b): HostileCase => ({ name: `form body (sample, valid CSRF): ${b}`, raw: form("/api/v1/form", b), expect: okOrRefused })),
    { name: "form body without a CSRF token", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"]], "__proto__[polluted]=1&constructor[prototype][polluted]=1&message=a"), expect: 403 },
    { name: "form body with the token in a __proto__ field", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"], ["Cookie", csrfCookie(validCsrf)]], `__proto__=${validCsrf}&message=a`), expect: 403 },
    ...formBodies.map((b): HostileCase => ({ name: `form body (kitchen): ${b}`, raw: form("/form", b.replaceAll("message", "name"), "kitchen"), expect: okOrRefused, app: "kitchen" })),
    { name: "query: prototype keys on the validated list", raw: http("GET", "/api/v1/users?__proto__[polluted]=1&constructor[prototype][polluted]=1"), expect: [200, 400, 422] },
    { name: "query: __proto__ beside limit", raw: http("GET", "/api/v1/users?__proto__=1&limit=2"), expect: [200, 400, 422] },
    { name: "query: limit under __proto__", raw: http("GET", "/api/v1/users?__proto__[limit]=1000"), expect: [200, 400, 422] },
    { name: "query: cursor named __proto__", raw: http("GET", "/api/v1/users?cursor=__proto__"), expect: [400, 422] },
    { name: "query (kitchen): __proto__ keys", raw: http("GET", "/q?__proto__=1&__proto__[polluted]=1&name=a"), expect: anyNon5xx, app: "kitchen" },
    { name: "query (kitchen): constructor.prototype", raw: http("GET", "/q?constructor.prototype.polluted=1&constructor[prototype][polluted]=1"), expect: anyNon5xx, app: "kitchen" },
    { name: "query (kitchen): name under __proto__", raw: http("GET", "/q?__proto__[name]=x"), expect: (a) => assert.ok(a.status >= 400 || !a.body.includes('"x"'), `${a.status} ${a.body}`), app: "kitchen" },
    { name: "header: a header named __proto__", raw: http("GET", "/hello", [["__proto__", '{"polluted":true}']]), expect: 200 },
    { name: "header: a header named constructor", raw: http("GET", "/hello", [["constructor", "x"], ["hasOwnProperty", "x"]]), expect: 200 },
    { name: "cookie: a cookie named __proto__", raw: http("GET", "/api/v1/form", [["Cookie", "__proto__=x; constructor=y; csrf_token=__proto__"]]), expect: 200 },
    { name: "cookie: a __proto__ cookie on a CSRF post", raw: http("POST", "/api/v1/form", [["Cookie", `__proto__=${validCsrf}`], ["X-CSRF-Token", validCsrf], ["Content-Type", "application/x-www-form-urlencoded"]], "message=a"), expect: 403 },
    { name: "JWT: a __proto__ claim", raw: http("GET", "/hello", [["Authorization", "Bearer e30.eyJfX3Byb3RvX18iOnsicG9sbHV0ZWQiOnRydWV9fQ.x"]]), expect: 200 },
    // A dotted key is one literal key unless path expansion is asked for: kept as data or refused.
    ...toonBodies.map(([name, body]): HostileCase => ({ name: `TOON: ${name}`, raw: http("POST", "/toon", [["Content-Type", "application/toon"]], body), expect: name.includes("dotted") ? okOrRefused : [400, 422], app: "kitchen" })),
  ],
};
