// Parsers the sample does not expose, on a small app of its own: TOON bodies, forms and query
// objects with prototype keys, deep TOON indentation.
import assert from "node:assert/strict";
import { http, type HostileClass, type HostileCase } from "../harness.js";

const toonPost = (body: string): Buffer => http("POST", "/toon", [["Content-Type", "application/toon"]], body);
const formPost = (body: string): Buffer => http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], body);

const toonBodies: Array<[string, string]> = [
  ["__proto__ key", "__proto__:\n  polluted: true\nname: a"],
  ["constructor.prototype keys", "constructor:\n  prototype:\n    polluted: true\nname: a"],
  ["a quoted __proto__ key", '"__proto__":\n  polluted: true\nname: a'],
  ["__proto__ inside a tabular header", "rows[1]{__proto__,name}:\n  x,a\nname: a"],
  ["deep indentation", Array.from({ length: 200 }, (_, i) => "  ".repeat(i) + "a:").join("\n")],
  ["an array length that lies", "items[1000000]: 1,2,3\nname: a"],
  ["a tab-indented line", "name: a\n\tb: 1"],
  ["an unterminated string", 'name: "a'],
  ["invalid UTF-8", "name: \u00ff\u00fe"],
  ["a key without a value at the end", "name:"],
];

export const kitchen: HostileClass = {
  name: "kitchen",
  cases: [
    ...toonBodies.map(([name, body]): HostileCase => ({ name: `TOON: ${name}`, raw: toonPost(body), expect: [400, 422] as const })),
    { name: "form: __proto__ fields", raw: formPost("__proto__=x&__proto__[polluted]=1&name=a"), expect: (a) => {
      // Refused, or accepted with the key kept as data in a null-prototype map: never pollution.
      assert.ok(a.status === 200 || a.status === 400 || a.status === 422, `status ${a.status}`);
    } },
    { name: "form: constructor[prototype] fields", raw: formPost("constructor[prototype][polluted]=1&name=a"), expect: (a) => assert.ok(a.status < 500) },
    { name: "form: 100 000 fields", raw: formPost(Array.from({ length: 100_000 }, (_, i) => `f${i}=1`).join("&")), expect: [400, 413, 422] as const },
    { name: "form: a field of invalid percent-encoding", raw: formPost("name=%zz%ff"), expect: (a) => assert.ok(a.status < 500) },
    { name: "query: __proto__ keys", raw: http("GET", "/q?__proto__=1&__proto__[polluted]=1&name=a"), expect: (a) => assert.ok(a.status < 500) },
    { name: "query: 10 000 parameters", raw: http("GET", "/q?" + Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join("&")), expect: (a) => assert.ok(a.status < 500) },
    { name: "query: the same key 10 000 times", raw: http("GET", "/q?" + "name=a&".repeat(10_000)), expect: (a) => assert.ok(a.status < 500) },
  ],
};
