// Request smuggling: a body length that a front end and keel could read differently (CL+TE,
// duplicate or malformed Content-Length, obfuscated Transfer-Encoding), bodies an early answer
// leaves unread (CL.0), and upgrade requests. Every ambiguous framing is a uniform 400 and
// nothing after it is answered as a second request (the harness counts the answers).
import assert from "node:assert/strict";
import { http, type Answer, type HostileCase, type HostileClass } from "../harness.js";

const SMUGGLED = "GET /hello HTTP/1.1\r\nHost: keel.test\r\n\r\n";
const chunkedThenSmuggled = `0\r\n\r\n${SMUGGLED}`;
const raw = (s: string): Buffer => Buffer.from(s, "latin1");

const teVariants = [
  "chunked\r\nTransfer-Encoding: identity",
  "chunked\r\nTransfer-Encoding: chunked",
  "identity",
  "xchunked",
  "chunked, identity",
  "chunked;q=1",
  "\tchunked",
  "chunk",
  "chunked\u000b",
  "gzip, chunked, gzip",
  "identity, chunked",
  "Chunked",
  "CHUNKED",
  "chunked,",
  ", chunked",
  "chunked, chunked",
  '"chunked"',
  "chunked\u0000",
];
/** Alone, these are valid chunked framing (a coding list ending in chunked, case-insensitive). */
const VALID_ALONE = new Set(["\tchunked", "identity, chunked", "Chunked", "CHUNKED", ", chunked", "chunked\r\nTransfer-Encoding: chunked"]);
const clVariants = ["+5", "-1", "0x5", "5 5", "5,6", "5.0", "1e1", " ", "99999999999999999999", "5\u000b", "５", "5;", "0005a", "\u00a05"];

/** One answer, with this status; the harness has already counted that there is only one. */
const onlyStatus =
  (status: number) =>
  (a: Answer): void =>
    assert.equal(a.status, status);

/** The body is the smuggled request: unread bodies of early answers must still be consumed. */
function cl0(name: string, method: string, target: string, status: number, extra: ReadonlyArray<readonly [string, string]> = []): HostileCase {
  return { name: `CL.0: ${name}`, raw: http(method, target, [...extra, ["Content-Length", String(SMUGGLED.length)]], SMUGGLED), expect: status };
}

export const smuggling: HostileClass = {
  name: "smuggling",
  cases: [
    { name: "CL and TE together", raw: http("POST", "/users", [["Content-Length", "6"], ["Transfer-Encoding", "chunked"]], chunkedThenSmuggled), expect: 400 },
    { name: "TE and CL together (reversed order)", raw: http("POST", "/users", [["Transfer-Encoding", "chunked"], ["Content-Length", "6"]], chunkedThenSmuggled), expect: 400 },
    { name: "TE chunked with Content-Length 0", raw: http("POST", "/users", [["Transfer-Encoding", "chunked"], ["Content-Length", "0"]], chunkedThenSmuggled), expect: 400 },
    { name: "two different Content-Lengths", raw: http("POST", "/users", [["Content-Length", "5"], ["Content-Length", "40"]], "{}   " + SMUGGLED), expect: 400 },
    { name: "two different Content-Lengths (larger first)", raw: http("POST", "/users", [["Content-Length", "40"], ["Content-Length", "5"]], "{}   " + SMUGGLED), expect: 400 },
    { name: "two equal Content-Lengths, then a smuggled request", raw: http("POST", "/echo-text", [["Content-Length", "2"], ["Content-Length", "2"], ["Content-Type", "text/plain"]], "hi" + "GARBAGE"), expect: 400 },
    { name: "a Content-Length list", raw: http("POST", "/users", [["Content-Length", "2, 2"]], "{}"), expect: 400 },
    { name: "a Content-Length list of different values", raw: http("POST", "/users", [["Content-Length", "2, 40"]], "{}" + SMUGGLED), expect: 400 },
    ...teVariants.map(
      (te): HostileCase => ({
        name: `obfuscated Transfer-Encoding ${JSON.stringify(te)} with a Content-Length`,
        raw: http("POST", "/users", [["Transfer-Encoding", te], ["Content-Length", String(chunkedThenSmuggled.length)]], chunkedThenSmuggled),
        expect: 400,
      }),
    ),
    // Alone, a TE whose last coding is chunked is a valid chunked body, and what follows it a real
    // pipelined request: those are not smuggling and are left out here.
    ...teVariants
      .filter((te) => !VALID_ALONE.has(te))
      .map(
        (te): HostileCase => ({
          name: `obfuscated Transfer-Encoding ${JSON.stringify(te)} alone`,
          raw: http("POST", "/users", [["Transfer-Encoding", te]], chunkedThenSmuggled),
          expect: [400, 411, 501],
        }),
      ),
    ...clVariants.map(
      (cl): HostileCase => ({
        name: `malformed Content-Length ${JSON.stringify(cl)}`,
        raw: http("POST", "/users", [["Content-Length", cl], ["Content-Type", "application/json"]], Buffer.from("{}   " + SMUGGLED, "utf8")),
        expect: [400, 413],
      }),
    ),
    { name: "Transfer-Encoding with a space before the colon", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nTransfer-Encoding : chunked\r\nContent-Length: 4\r\n\r\n${chunkedThenSmuggled}`), expect: 400 },
    { name: "Content-Length with a space before the colon", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nContent-Length : 40\r\n\r\n{}${SMUGGLED}`), expect: 400 },
    { name: "Transfer-Encoding folded onto the next line", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 4\r\n\r\n${chunkedThenSmuggled}`), expect: 400 },
    { name: "Content-Length folded onto the next line", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nContent-Length: 2\r\n 40\r\n\r\n{}${SMUGGLED}`), expect: 400 },
    { name: "Transfer-Encoding behind a bare-LF header line", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nX-A: 1\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${chunkedThenSmuggled}`), expect: 400 },
    { name: "a request line with a bare LF", raw: raw(`POST /users HTTP/1.1\nHost: keel.test\r\nContent-Length: 2\r\n\r\n{}`), expect: 400 },
    { name: "a head ended by a bare LF pair", raw: raw(`POST /users HTTP/1.1\r\nHost: keel.test\r\nContent-Length: 40\n\n{}${SMUGGLED}`), expect: [400, 408] },
    { name: "a GET with a body that holds a second request", raw: http("GET", "/hello", [["Content-Length", String(SMUGGLED.length + 10)]], "0123456789" + SMUGGLED), expect: onlyStatus(200) },
    { name: "a GET with a chunked body that holds a second request", raw: http("GET", "/hello", [["Transfer-Encoding", "chunked"]], `${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`), expect: onlyStatus(200) },
    cl0("a body on an unrouted path (404)", "POST", "/no-such-route", 404),
    cl0("a body on a GET-only route (405)", "POST", "/hello", 405),
    cl0("a body on a route whose JWT check fails first (401)", "DELETE", "/api/v1/admin/cache", 401),
    cl0("a body on a GET that fails authentication (401)", "GET", "/api/v1/me", 401),
    cl0("a body refused for its media type (415)", "POST", "/users", 415, [["Content-Type", "text/plain"]]),
    cl0("a body of a CSRF-refused form post (403)", "POST", "/api/v1/form", 403, [["Content-Type", "application/x-www-form-urlencoded"]]),
    cl0("a body on an OPTIONS request", "OPTIONS", "/users", 204),
    { name: "a declared length past a small limit, then a smuggled request", raw: http("POST", "/api/v1/reports", [["Content-Type", "application/json"], ["Content-Length", String(2048 + SMUGGLED.length)]], "x".repeat(2048) + SMUGGLED), expect: 413 },
    { name: "Connection: close, then a pipelined request", raw: Buffer.concat([http("GET", "/hello", [["Connection", "close"]]), raw(SMUGGLED)]), expect: onlyStatus(200) },
    { name: "HTTP/1.0 with Transfer-Encoding", raw: raw(`POST /users HTTP/1.0\r\nHost: keel.test\r\nTransfer-Encoding: chunked\r\n\r\n${chunkedThenSmuggled}`), expect: [400, 411, 415, 422] },
    { name: "HTTP/1.0 with Transfer-Encoding and Content-Length", raw: raw(`POST /users HTTP/1.0\r\nHost: keel.test\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n${chunkedThenSmuggled}`), expect: 400 },
    // An h2c or websocket upgrade the app does not offer is a plain HTTP/1.1 request: never a 101,
    // never a tunnel a front end would stop inspecting.
    ...(["h2c", "websocket", "HTTP/2.0", "TLS/1.2"] as const).map(
      (proto): HostileCase => ({
        name: `Upgrade: ${proto}`,
        raw: http("GET", "/hello", [["Connection", "Upgrade, HTTP2-Settings"], ["Upgrade", proto], ["HTTP2-Settings", "AAMAAABkAARAAAAAAAIAAAAA"], ["Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="], ["Sec-WebSocket-Version", "13"]]),
        expect: (a) => assert.ok(a.status !== 101 && a.status < 500, `status ${a.status}`),
      }),
    ),
  ],
};
