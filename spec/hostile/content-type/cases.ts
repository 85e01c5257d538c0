// Content-type differentials: a body a front end would read as one type and keel as another.
// Refused with a uniform 415 (or 400 for a malformed header), never parsed under a guess.
import { gzipSync } from "node:zlib";
import { http, type HostileCase, type HostileClass } from "../harness.js";

const VALID_USER = '{"email":"new@example.com","password":"correct horse"}';

const types: Array<[string, number | readonly number[]]> = [
  ["text/plain", 415],
  ["text/plain; charset=utf-8", 415],
  ["application/x-www-form-urlencoded", 415],
  ["multipart/form-data", 415],
  ["multipart/form-data; boundary=x", 415],
  ["application/jsonx", 415],
  ["application/json-patch", 415],
  ["application/x-json", 415],
  ["json", [400, 415]],
  ["text/json", 415],
  ["application/json, text/plain", [400, 415]],
  ["text/plain, application/json", [400, 415]],
  ["application/json;charset=utf-16", 415],
  ["application/json;charset=utf-16le", 415],
  ["application/json;charset=latin1", 415],
  ["application/json; charset=utf-8; charset=utf-16", [400, 415]],
  ['application/json; charset="', [400, 415]],
  ["application/json\u0000", [400, 415]],
  ["application/json\u0000text/plain", [400, 415]],
  ["application/ json", [400, 415]],
  ["application /json", [400, 415]],
  ["application/json/x", [400, 415]],
  [";application/json", [400, 415]],
  ["application/xml", 415],
  ["application/toon", 415],
  ["*/*", 415],
  ["application/*", 415],
  ["", [400, 415]],
];

export const contentType: HostileClass = {
  name: "content-type",
  cases: [
    ...types.map(([type, expect]): HostileCase => ({ name: `JSON route, content-type ${JSON.stringify(type)}`, raw: http("POST", "/users", [["Content-Type", type]], VALID_USER), expect })),
    { name: "JSON route, no content-type", raw: http("POST", "/users", [], VALID_USER), expect: 415 },
    { name: "JSON route, two content-types", raw: http("POST", "/users", [["Content-Type", "text/plain"], ["Content-Type", "application/json"]], VALID_USER), expect: [400, 415] },
    { name: "JSON route, two content-types (JSON first)", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Type", "text/plain"]], VALID_USER), expect: [400, 415] },
    { name: "JSON route, a gzip content-encoding", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Encoding", "gzip"]], gzipSync(VALID_USER)), expect: 415 },
    { name: "JSON route, a gzip bomb", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Encoding", "gzip"]], gzipSync(Buffer.alloc(50 * 1024 * 1024, 32))), expect: [413, 415] },
    { name: "JSON route, an unknown content-encoding", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Encoding", "rot13"]], VALID_USER), expect: 415 },
    { name: "JSON route, content-encoding identity, gzip", raw: http("POST", "/users", [["Content-Type", "application/json"], ["Content-Encoding", "identity, gzip"]], VALID_USER), expect: 415 },
    { name: "text route, content-type application/json", raw: http("POST", "/echo-text", [["Content-Type", "application/json"]], '"hi"'), expect: 415 },
    { name: "text route, charset utf-16", raw: http("POST", "/echo-text", [["Content-Type", "text/plain; charset=utf-16"]], Buffer.from("hi", "utf16le")), expect: 415 },
    // A text body without a content type is read as text: no other parser could claim it.
    { name: "text route, no content-type", raw: http("POST", "/echo-text", [], "hi"), expect: [200, 415] },
    { name: "TOON route, content-type application/json", raw: http("POST", "/toon", [["Content-Type", "application/json"]], '{"name":"a"}'), expect: 415, app: "kitchen" },
    { name: "TOON route, content-type text/plain", raw: http("POST", "/toon", [["Content-Type", "text/plain"]], "name: a"), expect: 415, app: "kitchen" },
    { name: "form route, content-type multipart", raw: http("POST", "/form", [["Content-Type", "multipart/form-data; boundary=b"]], "--b\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\na\r\n--b--\r\n"), expect: 415, app: "kitchen" },
    { name: "form route, content-type application/json", raw: http("POST", "/form", [["Content-Type", "application/json"]], '{"name":"a"}'), expect: 415, app: "kitchen" },
    { name: "form route, content-type text/plain (the CORS-simple type)", raw: http("POST", "/form", [["Content-Type", "text/plain"]], "name=a"), expect: 415, app: "kitchen" },
  ],
};
