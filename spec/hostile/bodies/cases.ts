// Malformed and oversized bodies: trailing garbage, several documents, empty and blank bodies,
// wrong top-level types, bodies over the route's limit (declared or sent in full), floods of
// form fields, TOON that lies about its lengths. A uniform 4xx each; a 413 sent before the body
// was read must still reach a client that keeps sending (lingering close).
import { http, type HostileCase, type HostileClass } from "../harness.js";

const json = (target: string, body: string | Buffer): Buffer => http("POST", target, [["Content-Type", "application/json"]], body);
const VALID_USER = '{"email":"new@example.com","password":"correct horse"}';
const toon = (body: string): Buffer => http("POST", "/toon", [["Content-Type", "application/toon"]], body);

export const bodies: HostileClass = {
  name: "bodies",
  cases: [
    { name: "a body of only whitespace", raw: json("/users", " ".repeat(1000)), expect: 400 },
    { name: "an empty body", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Length", "0"]]), expect: [400, 422] },
    { name: "trailing garbage after JSON", raw: json("/users", VALID_USER + "garbage"), expect: 400 },
    { name: "a NUL after JSON", raw: json("/users", VALID_USER + "\u0000"), expect: 400 },
    { name: "two JSON documents", raw: json("/users", VALID_USER + VALID_USER), expect: 400 },
    { name: "JSON with comments", raw: json("/users", '{/*x*/"email":"a@example.com","password":"correct horse"}'), expect: 400 },
    { name: "JSON with single quotes", raw: json("/users", "{'email':'a@example.com','password':'correct horse'}"), expect: 400 },
    { name: "JSON with a trailing comma", raw: json("/users", '{"email":"a@example.com","password":"correct horse",}'), expect: 400 },
    { name: "JSON with an unescaped control character", raw: json("/users", '{"email":"a\u0001@example.com","password":"correct horse"}'), expect: 400 },
    { name: "a JSON string instead of an object", raw: json("/users", '"hello"'), expect: 422 },
    { name: "JSON null", raw: json("/users", "null"), expect: 422 },
    { name: "a JSON array", raw: json("/users", "[]"), expect: 422 },
    { name: "duplicate keys", raw: json("/users", '{"email":"a@example.com","email":"not-an-email","password":"correct horse"}'), expect: 422 },
    { name: "an email of 100 000 characters", raw: json("/users", `{"email":"${"a".repeat(100_000)}@example.com","password":"correct horse"}`), expect: 422 },
    { name: "a report with an unknown property", raw: json("/api/v1/reports", '{"kind":"usage","month":"2024-05","blob":"x"}'), expect: 422 },
    { name: "a report of 900 KB", raw: json("/api/v1/reports", `{"kind":"usage","month":"2024-05","pad":"${"x".repeat(900 * 1024)}"}`), expect: 413 },
    { name: "a report of 2 KB declared, 1 byte sent", raw: http("POST", "/api/v1/reports", [["Content-Type", "application/json"], ["Content-Length", "2048"]], "{"), expect: 413 },
    { name: "a declared Content-Length of 10 GB", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Length", "10000000000"]]), expect: 413 },
    { name: "a body of 3 MiB sent in full", raw: json("/users", `{"email":"${"a".repeat(3 * 1024 * 1024)}"}`), expect: 413 },
    { name: "a text body of 3 MiB sent in full", raw: http("POST", "/echo-text", [["Content-Type", "text/plain"]], "a".repeat(3 * 1024 * 1024)), expect: 413 },
    { name: "a body shorter than its Content-Length", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Length", "100"]], VALID_USER), expect: [400, 408] },
    { name: "form (kitchen): 100 000 fields", raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], Array.from({ length: 100_000 }, (_, i) => `f${i}=1`).join("&")), expect: [400, 413, 422], app: "kitchen" },
    { name: "form (kitchen): the same field 100 000 times", raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], "name=a&".repeat(100_000)), expect: [400, 413, 422], app: "kitchen" },
    { name: "form (kitchen): a field of invalid percent-encoding", raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], "name=%zz%ff"), expect: [400, 422], app: "kitchen" },
    { name: "query (kitchen): 10 000 parameters", raw: http("GET", "/q?" + Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join("&")), expect: [200, 400, 414, 431], app: "kitchen" },
    { name: "query (kitchen): the same key 1 000 times", raw: http("GET", "/q?" + "name=a&".repeat(1000)), expect: [200, 400, 422], app: "kitchen" },
    { name: "TOON: an array length that lies", raw: toon("items[1000000]: 1,2,3\nname: a"), expect: [400, 422], app: "kitchen" },
    { name: "TOON: an array length past 2^53", raw: toon("items[99999999999999999999]: 1\nname: a"), expect: [400, 422], app: "kitchen" },
    { name: "TOON: a tabular header with more fields than rows hold", raw: toon("rows[2]{a,b,c}:\n  1,2\n  3\nname: a"), expect: [400, 422], app: "kitchen" },
    { name: "TOON: a tab-indented line", raw: toon("name: a\n\tb: 1"), expect: [400, 422], app: "kitchen" },
    { name: "TOON: an unterminated string", raw: toon('name: "a'), expect: [400, 422], app: "kitchen" },
    { name: "TOON: a key without a value at the end", raw: toon("name:"), expect: [400, 422], app: "kitchen" },
    { name: "TOON: a bad escape", raw: toon('name: "a\\q"'), expect: [400, 422], app: "kitchen" },
    { name: "TOON: an empty body", raw: http("POST", "/toon", [["Content-Type", "application/toon"], ["Content-Length", "0"]]), expect: [400, 422], app: "kitchen" },
  ],
};
