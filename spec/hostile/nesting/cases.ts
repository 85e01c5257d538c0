// Deep nesting and value floods: JSON arrays and objects past the depth cap (64), the value cap
// (50 000), TOON indentation, deep query and form keys, deep JWT claims. Refused with a uniform
// 4xx in bounded time, never a stack overflow (a 5xx) or a hang.
import assert from "node:assert/strict";
import { http, type HostileCase, type HostileClass } from "../harness.js";

const json = (target: string, body: string): Buffer => http("POST", target, [["Content-Type", "application/json"]], body);
const nested = (depth: number, open: string, close: string, inner = ""): string => open.repeat(depth) + inner + close.repeat(depth);
const USER = '"email":"a@example.com","password":"correct horse"';

export const nesting: HostileClass = {
  name: "nesting",
  cases: [
    { name: "65 nested arrays", raw: json("/users", nested(65, "[", "]")), expect: 400 },
    { name: "10 000 nested arrays", raw: json("/users", nested(10_000, "[", "]")), expect: 400 },
    { name: "100 000 nested arrays", raw: json("/users", nested(100_000, "[", "]")), expect: 400 },
    { name: "500 000 nested arrays (1 MB)", raw: json("/users", nested(500_000, "[", "]")), expect: [400, 413] },
    { name: "65 nested objects", raw: json("/users", '{"a":'.repeat(65) + "1" + "}".repeat(65)), expect: 400 },
    { name: "20 000 nested objects", raw: json("/users", '{"a":'.repeat(20_000) + "1" + "}".repeat(20_000)), expect: 400 },
    { name: "deep nesting inside a valid user", raw: json("/users", `{${USER},"x":${nested(5000, "[", "]")}}`), expect: 400 },
    { name: "deep nesting inside a string does not count", raw: json("/users", `{"email":"${"[".repeat(5000)}","password":"correct horse"}`), expect: 422 },
    { name: "brackets escaped inside strings, then deep nesting", raw: json("/users", `{"s":"\\"[[[","x":${nested(100, "[", "]")}}`), expect: 400 },
    { name: "unbalanced nesting", raw: json("/users", "[".repeat(5000)), expect: 400 },
    { name: "unbalanced closing", raw: json("/users", "]".repeat(5000)), expect: 400 },
    { name: "alternating [{ 40 000 deep", raw: json("/users", '[{"a":'.repeat(20_000) + "1" + "}]".repeat(20_000)), expect: 400 },
    { name: "1 MiB of [{},{},...] (value flood)", raw: json("/users", "[" + Array.from({ length: 340_000 }, () => "{}").join(",") + "]"), expect: [400, 413] },
    { name: "60 000 numbers in one array", raw: json("/users", "[" + "1,".repeat(60_000) + "1]"), expect: [400, 413] },
    { name: "60 000 keys in one object", raw: json("/users", "{" + Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(",") + "}"), expect: [400, 413] },
    { name: "a deep report", raw: json("/api/v1/reports", `{"kind":${nested(100, "[", "]")},"month":"2024-05"}`), expect: [400, 413, 422] },
    { name: "TOON: 200 levels of indentation", raw: http("POST", "/toon", [["Content-Type", "application/toon"]], Array.from({ length: 200 }, (_, i) => "  ".repeat(i) + "a:").join("\n")), expect: [400, 422], app: "kitchen" },
    { name: "TOON: 5 000 levels of indentation", raw: http("POST", "/toon", [["Content-Type", "application/toon"]], Array.from({ length: 5000 }, (_, i) => " ".repeat(i) + "a:").join("\n")), expect: [400, 413, 422], app: "kitchen" },
    // Inline TOON arrays hold primitives: the brackets are one string value, not 5 000 levels.
    { name: "TOON: 5 000 brackets as an inline value", raw: http("POST", "/toon", [["Content-Type", "application/toon"]], "name: a\nx[1]: " + nested(5000, "[", "]")), expect: [200, 400, 422], app: "kitchen" },
    { name: "query (kitchen): a key 2 000 brackets deep", raw: http("GET", "/q?" + "a" + "[a]".repeat(2000) + "=1"), expect: (a) => assert.ok(a.status < 500), app: "kitchen" },
    { name: "form (kitchen): a key 5 000 brackets deep", raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], "name=a&" + "a" + "[a]".repeat(5000) + "=1"), expect: (a) => assert.ok(a.status < 500), app: "kitchen" },
    { name: "JWT: a payload 1 500 objects deep", raw: http("GET", "/api/v1/me", [["Authorization", `Bearer e30.${Buffer.from('{"a":'.repeat(1500) + "1" + "}".repeat(1500)).toString("base64url")}.x`]]), expect: 401 },
    { name: "JWT: a header 1 000 arrays deep", raw: http("GET", "/api/v1/me", [["Authorization", `Bearer ${Buffer.from(`{"alg":"HS256","x":${nested(1000, "[", "]")}}`).toString("base64url")}.e30.x`]]), expect: 401 },
  ],
};
