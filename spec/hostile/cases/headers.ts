// Header injection and oversized heads: CR/LF/NUL inside names and values, folding, bad names,
// request lines and heads past the limits, bad methods and versions, Host problems.
import { http, type HostileClass } from "../harness.js";

const line = (s: string): Buffer => Buffer.from(s, "latin1");

export const headers: HostileClass = {
  name: "headers",
  cases: [
    { name: "a CR inside a header value", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: a\rSet-Cookie: x=1\r\n\r\n"), expect: 400 },
    { name: "a bare LF inside the head", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: a\nSet-Cookie: x=1\r\n\r\n"), expect: [200, 400] as const },
    { name: "a NUL in a header value", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: a\u0000b\r\n\r\n"), expect: 400 },
    { name: "a NUL in a header name", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-\u0000A: b\r\n\r\n"), expect: 400 },
    { name: "obs-fold continuation line", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: a\r\n folded\r\n\r\n"), expect: 400 },
    { name: "a space inside a header name", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX A: b\r\n\r\n"), expect: 400 },
    { name: "a header name with a colon-like char", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX(A): b\r\n\r\n"), expect: 400 },
    { name: "an empty header name", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\n: b\r\n\r\n"), expect: 400 },
    { name: "a header line without a colon", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nNoColon\r\n\r\n"), expect: 400 },
    { name: "a DEL in a header value", raw: line("GET /hello HTTP/1.1\r\nHost: keel.test\r\nX-A: a\u007fb\r\n\r\n"), expect: 400 },
    { name: "a 20 KB header value", raw: http("GET", "/hello", [["X-Big", "a".repeat(20_000)]]), expect: 431 },
    { name: "300 headers of 100 bytes", raw: http("GET", "/hello", Array.from({ length: 300 }, (_, i) => [`X-H${i}`, "v".repeat(100)] as const)), expect: 431 },
    { name: "a 20 KB request line", raw: line(`GET /hello?${"q".repeat(20_000)} HTTP/1.1\r\nHost: keel.test\r\n\r\n`), expect: [414, 431, 400] as const },
    { name: "a 20 KB cookie", raw: http("GET", "/hello", [["Cookie", "a=" + "b".repeat(20_000)]]), expect: 431 },
    { name: "a method with a slash", raw: line("G/ET /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a lowercase method", raw: line("get /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [400, 405, 501] as const },
    { name: "an unknown method", raw: line("BREW /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [400, 405, 501] as const },
    { name: "CONNECT to a host", raw: line("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n"), expect: [400, 405, 501] as const },
    { name: "HTTP/2.0 on an HTTP/1 socket", raw: line("GET /hello HTTP/2.0\r\nHost: keel.test\r\n\r\n"), expect: [400, 505] as const },
    { name: "HTTP/1.2", raw: line("GET /hello HTTP/1.2\r\nHost: keel.test\r\n\r\n"), expect: [400, 505] as const },
    { name: "a lowercase version", raw: line("GET /hello http/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "HTTP/0.9 (no version)", raw: line("GET /hello\r\n\r\n"), expect: 400 },
    // RFC 9112 §3 lets a server split the request line on whitespace runs; Node does, and the
    // target it yields is the same "/hello" any recipient would read: no differential.
    { name: "two spaces in the request line", raw: line("GET  /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: [200, 400] as const },
    { name: "a space inside the target", raw: line("GET /hel lo HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a tab inside the target", raw: line("GET /hel\tlo HTTP/1.1\r\nHost: keel.test\r\n\r\n"), expect: 400 },
    { name: "a missing Host", raw: line("GET /hello HTTP/1.1\r\n\r\n"), expect: 400 },
    { name: "an invalid Expect", raw: http("POST", "/users", [["Expect", "200-ok"], ["Content-Type", "application/json"]], "{}"), expect: 417 },
    { name: "a response-splitting attempt in the tenant header", raw: line("GET /projects HTTP/1.1\r\nHost: keel.test\r\nX-Tenant-Id: acme\r\n\rSet-Cookie: x=1\r\n\r\n"), expect: 400 },
    // obs-text is legal in a field value (RFC 9110 §5.5): read as latin1 and echoed as JSON text.
    { name: "a header value of obs-text bytes in x-tenant-id", raw: Buffer.concat([line("GET /projects HTTP/1.1\r\nHost: keel.test\r\nX-Tenant-Id: "), Buffer.from([0xff, 0xfe, 0x80]), line("\r\n\r\n")]), expect: [200, 400, 422] as const },
    { name: "an x-request-id with CRLF-like junk", raw: http("GET", "/projects", [["X-Tenant-Id", "acme"], ["X-Request-Id", "a".repeat(500)]]), expect: (a) => {
      // An over-long incoming id is not echoed: a fresh one is made.
      const id = a.headers["x-request-id"];
      if (id !== undefined && id.length > 128) throw new Error(`echoed an over-long request id (${id.length} chars)`);
      if (a.status >= 500) throw new Error(`status ${a.status}`);
    } },
  ],
};
