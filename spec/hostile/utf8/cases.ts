// Invalid UTF-8 in bodies (JSON, text, form, TOON), queries, cookies and headers: decoded
// strictly and refused with a uniform 400 (or a 4xx of the extractor), never replaced by U+FFFD
// and passed on as if valid, never a 5xx.
import assert from "node:assert/strict";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";

const b = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

/** Byte sequences that are not UTF-8. */
const bad: Array<[string, number[]]> = [
  ["0xff 0xfe", [0xff, 0xfe]],
  ["a lone continuation byte", [0x80]],
  ["an overlong NUL (C0 80)", [0xc0, 0x80]],
  ["an overlong quote (C0 A2)", [0xc0, 0xa2]],
  ["an overlong slash (E0 80 AF)", [0xe0, 0x80, 0xaf]],
  ["a surrogate (ED A0 80)", [0xed, 0xa0, 0x80]],
  ["a code point above U+10FFFF (F4 90 80 80)", [0xf4, 0x90, 0x80, 0x80]],
  ["a five-byte sequence (F8 88 80 80 80)", [0xf8, 0x88, 0x80, 0x80, 0x80]],
  ["a truncated three-byte sequence", [0xe2, 0x82]],
  ["a lead byte followed by ASCII", [0xc3, 0x28]],
];

const json = (body: Buffer): Buffer => http("POST", "/users", [["Content-Type", "application/json"]], body);
const text = (body: Buffer, type = "text/plain"): Buffer => http("POST", "/echo-text", [["Content-Type", type]], body);
const non5xx = (a: Answer): void => assert.ok(a.status < 500, `status ${a.status}`);
/** Refused, or accepted without the bytes turned into U+FFFD replacement characters. */
const noReplacement = (a: Answer): void => {
  assert.ok(a.status < 500, `status ${a.status}`);
  if (a.status < 300) assert.doesNotMatch(a.body, /\ufffd/, "decoded leniently into U+FFFD");
};

export const utf8: HostileClass = {
  name: "utf8",
  cases: [
    ...bad.map(([name, bytes]): HostileCase => ({ name: `JSON string value: ${name}`, raw: json(b('{"email":"a', bytes, '@example.com","password":"correct horse"}')), expect: 400 })),
    ...bad.map(([name, bytes]): HostileCase => ({ name: `JSON key: ${name}`, raw: json(b('{"', bytes, '":1,"email":"a@example.com","password":"correct horse"}')), expect: 400 })),
    ...bad.map(([name, bytes]): HostileCase => ({ name: `text body: ${name}`, raw: text(b("h", bytes, "i")), expect: 400 })),
    ...bad.slice(0, 5).map(([name, bytes]): HostileCase => ({ name: `text body declared utf-8: ${name}`, raw: text(b("h", bytes), "text/plain; charset=utf-8"), expect: 400 })),
    ...bad.slice(0, 5).map(([name, bytes]): HostileCase => ({ name: `form body (kitchen): ${name}`, raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], b("name=a", bytes)), expect: 400, app: "kitchen" })),
    ...bad.slice(0, 5).map(([name, bytes]): HostileCase => ({ name: `form body, percent-encoded (kitchen): ${name}`, raw: http("POST", "/form", [["Content-Type", "application/x-www-form-urlencoded"]], "name=a" + Buffer.from(bytes).toString("hex").replace(/../g, "%$&")), expect: 400, app: "kitchen" })),
    ...bad.slice(0, 5).map(([name, bytes]): HostileCase => ({ name: `TOON body (kitchen): ${name}`, raw: http("POST", "/toon", [["Content-Type", "application/toon"]], b("name: a", bytes)), expect: 400, app: "kitchen" })),
    ...bad.slice(0, 5).map(([name, bytes]): HostileCase => ({ name: `query, percent-encoded (kitchen): ${name}`, raw: http("GET", "/q?name=a" + Buffer.from(bytes).toString("hex").replace(/../g, "%$&")), expect: noReplacement, app: "kitchen" })),
    { name: "query on the sample: an invalid cursor encoding", raw: http("GET", "/api/v1/users?cursor=%ff%fe"), expect: [400, 422] },
    { name: "a text body starting with a UTF-16 BOM", raw: text(Buffer.from([0xfe, 0xff, 0x00, 0x68])), expect: 400 },
    { name: "a JSON body in UTF-16", raw: json(Buffer.from('{"email":"a@example.com"}', "utf16le")), expect: 400 },
    { name: "a JSON body in UTF-32 (BOM)", raw: json(Buffer.from([0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x7b, 0, 0, 0, 0x7d])), expect: 400 },
    { name: "a JSON body with an escaped lone surrogate", raw: json(Buffer.from('{"email":"\\ud800@example.com","password":"correct horse"}')), expect: [400, 422] },
    { name: "a cookie of invalid UTF-8", raw: b("GET /api/v1/form HTTP/1.1\r\nHost: keel.test\r\nCookie: csrf_token=", [0xff, 0xfe], "\r\n\r\n"), expect: non5xx },
    { name: "an Authorization header of invalid UTF-8", raw: b("GET /api/v1/me HTTP/1.1\r\nHost: keel.test\r\nAuthorization: Bearer ", [0xc0, 0xaf], ".a.b\r\n\r\n"), expect: 401 },
  ],
};
