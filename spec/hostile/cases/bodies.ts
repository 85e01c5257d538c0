// Bodies: content-type differentials, prototype keys (JSON, form, query, TOON), huge numbers,
// invalid UTF-8, deep nesting and value floods. Refused with a 4xx, or accepted with the key
// dropped: never a polluted Object.prototype (the harness checks after every case).
import { http, type HostileClass, type HostileCase } from "../harness.js";

const json = (target: string, body: string | Buffer, type = "application/json"): Buffer => http("POST", target, [["Content-Type", type]], body);
const VALID_USER = '{"email":"new@example.com","password":"correct horse"}';

const contentTypes: Array<[string, number | readonly number[]]> = [
  ["text/plain", 415],
  ["application/x-www-form-urlencoded", 415],
  ["multipart/form-data", 415],
  ["multipart/form-data; boundary=x", 415],
  ["application/jsonx", 415],
  ["application/json-patch", 415],
  ["text/json", 415],
  ["application/json, text/plain", [400, 415]],
  ["application/json;charset=utf-16", [400, 415]],
  ["application/json; charset=\"", [400, 415]],
  ["application/json\u0000", [400, 415]],
  ["application/ json", [400, 415]],
  [";application/json", [400, 415]],
  ["application/xml", 415],
  ["*/*", 415],
];

const protoBodies: string[] = [
  '{"__proto__":{"polluted":true},"email":"a@example.com","password":"correct horse"}',
  '{"constructor":{"prototype":{"polluted":true}},"email":"a@example.com","password":"correct horse"}',
  '{"email":"a@example.com","password":"correct horse","nested":{"__proto__":{"polluted":true}}}',
  '{"\\u005f_proto__":{"polluted":true},"email":"a@example.com","password":"correct horse"}',
  '{"__pro\\u0074o__":{"polluted":true},"email":"a@example.com","password":"correct horse"}',
  '[{"__proto__":{"polluted":true}}]',
  '{"a":[{"b":{"__proto__":{"polluted":true}}}]}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];

const numbers = ["1e400", "-1e400", "123456789012345678901234567890", "1e-400", "-0", "NaN", "Infinity", "0x10", "01", "1.", ".5", "+1"];

function nested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

export const bodies: HostileClass = {
  name: "bodies",
  cases: [
    ...contentTypes.map(([type, expect]): HostileCase => ({ name: `content-type ${JSON.stringify(type)}`, raw: json("/users", VALID_USER, type), expect })),
    { name: "no content-type", raw: http("POST", "/users", [], VALID_USER), expect: 415 },
    { name: "two content-types", raw: http("POST", "/users", [["Content-Type", "text/plain"], ["Content-Type", "application/json"]], VALID_USER), expect: [400, 415] as const },
    ...protoBodies.map((b, i): HostileCase => ({ name: `prototype key in JSON #${i + 1}`, raw: json("/users", b), expect: [400, 422] as const })),
    { name: "prototype key in a form body", raw: http("POST", "/api/v1/form", [["Content-Type", "application/x-www-form-urlencoded"]], "__proto__[polluted]=1&constructor[prototype][polluted]=1&name=a"), expect: 403 },
    { name: "prototype keys in the query (validated list)", raw: http("GET", "/api/v1/users?__proto__[polluted]=1&constructor[prototype][polluted]=1"), expect: (a) => {
      if (a.status >= 500) throw new Error(String(a.status));
    } },
    { name: "prototype key as the limit parameter name", raw: http("GET", "/api/v1/users?__proto__=1&limit=2"), expect: (a) => {
      if (a.status !== 200 && a.status !== 422) throw new Error(`status ${a.status}`);
    } },
    ...numbers.map((n): HostileCase => ({ name: `number ${n} in a JSON body`, raw: json("/users", `{"email":${n},"password":"correct horse"}`), expect: [400, 422] as const })),
    ...numbers.map((n): HostileCase => ({ name: `number ${n} as a path id`, raw: http("GET", `/users/${encodeURIComponent(n)}`), expect: [400, 404, 422] as const })),
    { name: "a 20-digit limit", raw: http("GET", "/api/v1/users?limit=99999999999999999999"), expect: 422 },
    { name: "invalid UTF-8 in a JSON body", raw: json("/users", Buffer.from([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])), expect: 400 },
    { name: "an overlong UTF-8 quote in a JSON body", raw: json("/users", Buffer.concat([Buffer.from('{"email":"a'), Buffer.from([0xc0, 0xa2]), Buffer.from('"}')])), expect: 400 },
    { name: "a UTF-8 surrogate in a JSON body", raw: json("/users", Buffer.concat([Buffer.from('{"email":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')])), expect: 400 },
    { name: "invalid UTF-8 in a text body", raw: http("POST", "/echo-text", [["Content-Type", "text/plain"]], Buffer.from([0x68, 0xc3, 0x28])), expect: 400 },
    { name: "a truncated UTF-8 sequence at the end of a text body", raw: http("POST", "/echo-text", [["Content-Type", "text/plain"]], Buffer.from([0x68, 0xe2, 0x82])), expect: 400 },
    { name: "a UTF-16 BOM in a JSON body", raw: json("/users", Buffer.from([0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d])), expect: 400 },
    { name: "10 000 nested arrays", raw: json("/users", nested(10_000, "[", "]")), expect: 400 },
    { name: "100 000 nested arrays", raw: json("/users", nested(100_000, "[", "]")), expect: 400 },
    { name: "65 nested objects", raw: json("/users", '{"a":'.repeat(65) + "1" + "}".repeat(65)), expect: 400 },
    { name: "unbalanced nesting", raw: json("/users", "[".repeat(5000)), expect: 400 },
    { name: "1 MiB of [{},{},...]", raw: json("/users", "[" + Array.from({ length: 340_000 }, () => "{}").join(",") + "]"), expect: [400, 413] as const },
    { name: "a body of only whitespace", raw: json("/users", " ".repeat(1000)), expect: 400 },
    { name: "an empty body", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Length", "0"]]), expect: [400, 422] as const },
    { name: "trailing garbage after JSON", raw: json("/users", VALID_USER + "garbage"), expect: 400 },
    { name: "two JSON documents", raw: json("/users", VALID_USER + VALID_USER), expect: 400 },
    { name: "a JSON string instead of an object", raw: json("/users", '"hello"'), expect: 422 },
    { name: "duplicate keys", raw: json("/users", '{"email":"a@example.com","email":"not-an-email","password":"correct horse"}'), expect: 422 },
    { name: "an email of 100 000 characters", raw: json("/users", `{"email":"${"a".repeat(100_000)}@example.com","password":"correct horse"}`), expect: 422 },
    { name: "a report with an unknown property", raw: json("/api/v1/reports", '{"kind":"usage","month":"2024-05","blob":"x"}'), expect: 422 },
    { name: "a report of 900 KB", raw: json("/api/v1/reports", `{"kind":"usage","month":"2024-05","pad":"${"x".repeat(900 * 1024)}"}`), expect: 413 },
    { name: "a declared Content-Length of 10 GB", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Length", "10000000000"]]), expect: 413 },
  ],
};
