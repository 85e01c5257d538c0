// Request smuggling: a body length that front and back ends could read differently. Every
// ambiguous framing is refused with 400 and nothing after it is answered as a second request.
import { http, type HostileClass } from "../harness.js";

const SMUGGLED = "GET /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n";
const body = `0\r\n\r\n${SMUGGLED}`;

const teVariants = [
  "chunked\r\nTransfer-Encoding: identity",
  "identity",
  "xchunked",
  "chunked, identity",
  "chunked;q=1",
  "\tchunked",
  "chunk",
  "chunked\u000b",
  "gzip, chunked, gzip",
  "identity, chunked",
];
const clVariants = ["+5", "-1", "0x5", "5 5", "5,6", "5.0", "1e1", " ", "99999999999999999999", "5\u000b"];

export const smuggling: HostileClass = {
  name: "smuggling",
  cases: [
    { name: "CL and TE together", raw: http("POST", "/users", [["Content-Length", "6"], ["Transfer-Encoding", "chunked"]], body), expect: 400 },
    { name: "TE and CL together (reversed order)", raw: http("POST", "/users", [["Transfer-Encoding", "chunked"], ["Content-Length", "6"]], body), expect: 400 },
    { name: "two different Content-Lengths", raw: http("POST", "/users", [["Content-Length", "5"], ["Content-Length", "40"]], "{}   " + SMUGGLED), expect: 400 },
    { name: "two equal Content-Lengths, then a smuggled request", raw: http("POST", "/echo-text", [["Content-Length", "2"], ["Content-Length", "2"], ["Content-Type", "text/plain"]], "hi" + "GARBAGE"), expect: 400 },
    { name: "a Content-Length list", raw: http("POST", "/users", [["Content-Length", "2, 2"]], "{}"), expect: 400 },
    ...teVariants.map((te) => ({
      name: `obfuscated Transfer-Encoding ${JSON.stringify(te)} with a Content-Length`,
      raw: http("POST", "/users", [["Transfer-Encoding", te], ["Content-Length", String(body.length)]], body),
      expect: 400,
    })),
    // Alone, a TE whose last coding is chunked ("\tchunked": leading whitespace is OWS) is a valid
    // chunked body, and what follows it a real pipelined request: those are not smuggling.
    ...teVariants.filter((te) => te !== "\tchunked" && te !== "identity, chunked").map((te) => ({
      name: `obfuscated Transfer-Encoding ${JSON.stringify(te)} alone`,
      raw: http("POST", "/users", [["Transfer-Encoding", te]], body),
      expect: [400, 411, 501] as const,
    })),
    ...clVariants.map((cl) => ({
      name: `malformed Content-Length ${JSON.stringify(cl)}`,
      raw: http("POST", "/users", [["Content-Length", cl], ["Content-Type", "application/json"]], "{}   " + SMUGGLED),
      expect: [400, 413] as const,
    })),
    { name: "Transfer-Encoding with a space before the colon", raw: Buffer.from(`POST /users HTTP/1.1\r\nHost: keel.test\r\nTransfer-Encoding : chunked\r\nContent-Length: 4\r\n\r\n${body}`, "latin1"), expect: 400 },
    { name: "Content-Length with a space before the colon", raw: Buffer.from(`POST /users HTTP/1.1\r\nHost: keel.test\r\nContent-Length : 40\r\n\r\n{}${SMUGGLED}`, "latin1"), expect: 400 },
    { name: "a request line with a bare LF", raw: Buffer.from(`POST /users HTTP/1.1\nHost: keel.test\r\nContent-Length: 2\r\n\r\n{}`, "latin1"), expect: 400 },
    { name: "a GET with a body that holds a second request", raw: http("GET", "/hello", [["Content-Length", String(SMUGGLED.length + 10)]], "0123456789" + SMUGGLED), expect: (a) => {
      // The body is the body: one answer (the harness counts them), and that answer is /hello's.
      if (a.status !== 200) throw new Error(`expected 200, got ${a.status}`);
    } },
    { name: "HTTP/1.0 with Transfer-Encoding", raw: Buffer.from(`POST /users HTTP/1.0\r\nHost: keel.test\r\nTransfer-Encoding: chunked\r\n\r\n${body}`, "latin1"), expect: [400, 411, 415, 422] as const },
  ],
};
