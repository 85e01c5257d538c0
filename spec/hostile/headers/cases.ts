// Header injection and oversized heads: CR/LF/NUL inside names and values, folding, bad names,
// request lines and heads past the limits, bad methods and versions, Host problems. Whatever
// Node's parser refuses is answered by keel with the uniform body, never Node's bare status line.
import assert from "node:assert/strict";
import { http, type HostileCase, type HostileClass } from "../harness.js";

const line = (s: string): Buffer => Buffer.from(s, "latin1");
const get = (extra: string): Buffer => line(`GET /hello HTTP/1.1\r\nHost: keel.test\r\n${extra}\r\n`);

/** Injection attempts inside one header line of a GET /hello; each is a uniform 400. */
const injections: Array<[string, string]> = [
  ["a CR inside a header value", "X-A: a\rSet-Cookie: x=1\r\n"],
  ["a NUL in a header value", "X-A: a\u0000b\r\n"],
  ["a NUL in a header name", "X-\u0000A: b\r\n"],
  ["obs-fold continuation line", "X-A: a\r\n folded\r\n"],
  ["obs-fold with a tab", "X-A: a\r\n\tfolded\r\n"],
  ["a space inside a header name", "X A: b\r\n"],
  ["a header name with parentheses", "X(A): b\r\n"],
  ["a header name with a slash", "X/A: b\r\n"],
  ["a header name with a non-ASCII byte", "X-\u00e9: b\r\n"],
  ["an empty header name", ": b\r\n"],
  ["a header line without a colon", "NoColon\r\n"],
  ["a DEL in a header value", "X-A: a\u007fb\r\n"],
  ["a vertical tab in a header value", "X-A: a\u000bb\r\n"],
  ["a form feed in a header value", "X-A: a\u000cb\r\n"],
  ["an escape byte in a header value", "X-A: a\u001bb\r\n"],
  ["a header line of only a colon", ":\r\n"],
  ["a header line starting with whitespace (first line)", " X-A: b\r\n"],
  ["a CR in the middle of a header name", "X-\rA: b\r\n"],
];

const hosts: Array<[string, string]> = [
  ["a missing Host", "GET /hello HTTP/1.1\r\n\r\n"],
  ["two Host headers", "GET /hello HTTP/1.1\r\nHost: keel.test\r\nHost: evil.example\r\n\r\n"],
  ["a Host with userinfo", "GET /hello HTTP/1.1\r\nHost: user@evil.example\r\n\r\n"],
  ["a Host with a path", "GET /hello HTTP/1.1\r\nHost: keel.test/admin\r\n\r\n"],
  ["a Host with a space", "GET /hello HTTP/1.1\r\nHost: keel test\r\n\r\n"],
  ["a Host with a bad port", "GET /hello HTTP/1.1\r\nHost: keel.test:abc\r\n\r\n"],
  ["a Host list", "GET /hello HTTP/1.1\r\nHost: keel.test, evil.example\r\n\r\n"],
  ["an absolute-form target naming another host than Host, with userinfo", "GET http://evil.example@keel.test/hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"],
];

export const headers: HostileClass = {
  name: "headers",
  cases: [
    ...injections.map(([name, extra]): HostileCase => ({ name, raw: get(extra), expect: 400 })),
    // A bare LF ends a field line for Node (RFC 9112 §2.2 allows a recipient to do so): the two
    // fields are read as two, with no CR left to split a response. Accepted or refused, never a 5xx.
    { name: "a bare LF inside the head", raw: get("X-A: a\nSet-Cookie: x=1\r\n"), expect: [200, 400] },
    { name: "a 20 KB header value", raw: http("GET", "/hello", [["X-Big", "a".repeat(20_000)]]), expect: 431 },
    { name: "a 20 KB header name", raw: http("GET", "/hello", [["X-" + "n".repeat(20_000), "v"]]), expect: 431 },
    { name: "300 headers of 100 bytes", raw: http("GET", "/hello", Array.from({ length: 300 }, (_, i) => [`X-H${i}`, "v".repeat(100)] as const)), expect: 431 },
    { name: "3 000 tiny headers", raw: http("GET", "/hello", Array.from({ length: 3000 }, (_, i) => [`a${i}`, "1"] as const)), expect: 431 },
    { name: "a 20 KB request line", raw: line(`GET /hello?${"q".repeat(20_000)} HTTP/1.1\r\nHost: keel.test\r\n\r\n`), expect: [414, 431, 400] },
    { name: "a 20 KB method", raw: line(`${"G".repeat(20_000)} /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n`), expect: [400, 414, 431] },
    { name: "a 20 KB cookie", raw: http("GET", "/hello", [["Cookie", "a=" + "b".repeat(20_000)]]), expect: 431 },
    { name: "a 100 KB head that never ends", raw: line(`GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: ${"a".repeat(100_000)}`), expect: 431 },
    { name: "a head that never ends", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: 1\r\n"), expect: 408 },
    { name: "a request line that never ends", raw: line("GET /hello HTTP/1.1"), expect: 408 },
    { name: "a method with a slash", raw: line("G/ET /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a lowercase method", raw: line("get /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [400, 405, 501] },
    { name: "an unknown method", raw: line("BREW /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [400, 405, 501] },
    { name: "TRACE", raw: line("TRACE /hello HTTP/1.1\r\nHost: keel.test\r\nCookie: secret=1\r\n\r\n"), expect: [400, 405, 501] },
    { name: "CONNECT to a host", raw: line("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n"), expect: [400, 405, 501] },
    { name: "HTTP/2.0 on an HTTP/1 socket", raw: line("GET /hello HTTP/2.0\r\nHost: keel.test\r\n\r\n"), expect: [400, 505] },
    { name: "the HTTP/2 connection preface", raw: line("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), expect: [400, 505] },
    { name: "HTTP/1.2", raw: line("GET /hello HTTP/1.2\r\nHost: keel.test\r\n\r\n"), expect: [400, 505] },
    { name: "HTTP/9.9", raw: line("GET /hello HTTP/9.9\r\nHost: keel.test\r\n\r\n"), expect: [400, 505] },
    { name: "a lowercase version", raw: line("GET /hello http/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "HTTP/0.9 (no version)", raw: line("GET /hello\r\n\r\n"), expect: 400 },
    { name: "a TLS ClientHello on the plain port", raw: Buffer.from("160301020001000200030379", "hex"), expect: 400 },
    { name: "binary garbage", raw: Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x0d, 0x0a, 0x0d, 0x0a]), expect: 400 },
    { name: "a line of CRLFs before the request line", raw: line("\r\n\r\n\r\nGET /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [200, 400] },
    // RFC 9112 §3 lets a server split the request line on whitespace runs; Node does, and the
    // target it yields is the same "/hello" any recipient would read: no differential.
    { name: "two spaces in the request line", raw: line("GET  /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [200, 400] },
    { name: "a space inside the target", raw: line("GET /hel lo HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a tab inside the target", raw: line("GET /hel\tlo HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a raw non-ASCII byte in the target", raw: line("GET /hel\u00e9lo HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a raw NUL in the target", raw: line("GET /hello\u0000 HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    ...hosts.map(([name, r]): HostileCase => ({ name, raw: line(r), expect: 400 })),
    { name: "an invalid Expect", raw: http("POST", "/users", [["Expect", "200-ok"], ["Content-Type", "application/json"]], "{}"), expect: 417 },
    { name: "a response-splitting attempt in the tenant header", raw: line("GET /projects HTTP/1.1\r\nHost: keel.test\r\nX-Tenant-Id: acme\r\n\rSet-Cookie: x=1\r\n\r\n"), expect: 400 },
    // obs-text is legal in a field value (RFC 9110 §5.5): read as latin1 and echoed as JSON text.
    { name: "a header value of obs-text bytes in x-tenant-id", raw: Buffer.concat([line("GET /projects HTTP/1.1\r\nHost: keel.test\r\nX-Tenant-Id: "), Buffer.from([0xff, 0xfe, 0x80]), line("\r\n\r\n")]), expect: [200, 400, 422] },
    {
      name: "an over-long x-request-id",
      raw: http("GET", "/projects", [["X-Tenant-Id", "acme"], ["X-Request-Id", "a".repeat(500)]]),
      expect: (a) => {
        // An over-long incoming id is not echoed: a fresh one is made.
        const id = a.headers["x-request-id"];
        assert.ok(id === undefined || id.length <= 128, `echoed an over-long request id (${id?.length} chars)`);
      },
    },
    {
      name: "an x-request-id with a JSON-breaking quote",
      raw: http("GET", "/projects", [["X-Tenant-Id", "acme"], ["X-Request-Id", 'a","level":60,"x":"']]),
      expect: (a) => {
        const id = a.headers["x-request-id"];
        assert.ok(id === undefined || !id.includes('"'), `echoed ${id}`);
      },
    },
  ],
};
