// Invalid chunked bodies: bad sizes, missing or bare line ends, oversized extensions, trailers,
// bodies that end early. Each is a uniform 400 (or 413 over the limit; a body cut short waits for
// the rest, and the request timeout answers it with a uniform 408).
import { http, type HostileCase, type HostileClass } from "../harness.js";

const te: Array<readonly [string, string]> = [["Transfer-Encoding", "chunked"], ["Content-Type", "application/json"]];
const MIB = "100000\r\n" + "x".repeat(0x100000) + "\r\n";

/** [name, chunked body, expectation]; the default expectation is 400. */
const bodies: Array<[string, string, (number | readonly number[])?]> = [
  ["a size that is not hex", "zz\r\n{}\r\n0\r\n\r\n"],
  ["a negative size", "-2\r\n{}\r\n0\r\n\r\n"],
  ["a 0x prefix", "0x2\r\n{}\r\n0\r\n\r\n"],
  ["a 0X prefix", "0X2\r\n{}\r\n0\r\n\r\n"],
  ["a plus sign", "+2\r\n{}\r\n0\r\n\r\n"],
  ["a size with a space inside", "1 1\r\n{}\r\n0\r\n\r\n"],
  ["a size with a trailing space", "2 \r\n{}\r\n0\r\n\r\n"],
  ["a size with a leading space", " 2\r\n{}\r\n0\r\n\r\n"],
  ["a size with a trailing tab", "2\t\r\n{}\r\n0\r\n\r\n"],
  ["a NUL in the size line", "2\u0000\r\n{}\r\n0\r\n\r\n"],
  ["an empty size line", "\r\n{}\r\n0\r\n\r\n"],
  ["a size larger than the data", "ff\r\n{}\r\n0\r\n\r\n", [400, 408]],
  ["a size smaller than the data", "1\r\n{}\r\n0\r\n\r\n"],
  ["no CRLF after the data", "2\r\n{}0\r\n\r\n"],
  ["a bare LF after the data", "2\r\n{}\n0\r\n\r\n"],
  ["a bare CR after the data", "2\r\n{}\r0\r\n\r\n"],
  ["a bare LF after the size", "2\n{}\r\n0\r\n\r\n"],
  ["a bare CR after the size", "2\r{}\r\n0\r\n\r\n"],
  ["a 64-bit overflowing size", "ffffffffffffffffff\r\n{}\r\n0\r\n\r\n"],
  ["a size of 2^64-1", "ffffffffffffffff\r\n{}\r\n0\r\n\r\n", [400, 408, 413]],
  ["a size of 2^63", "8000000000000000\r\n{}\r\n0\r\n\r\n", [400, 408, 413]],
  // Node's parser does not expose a chunk's announced size, so keel counts bytes as they come:
  // a huge announced chunk that never arrives ends in the request timeout (408).
  ["a size over the body limit, announced", "7fffffff\r\n{}\r\n0\r\n\r\n", [400, 408, 413]],
  ["an extension with a bare LF", "2;ext\n{}\r\n0\r\n\r\n"],
  ["an oversized chunk extension", `2;${"x".repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, [400, 413]],
  ["many extensions across many chunks", `${"1;" + "e".repeat(1000) + "\r\n \r\n"}`.repeat(200) + "0\r\n\r\n", [400, 413]],
  ["an extension with a space in its value", "2;a=b c\r\n{}\r\n0\r\n\r\n"],
  ["an extension with a NUL", "2;a=\u0000\r\n{}\r\n0\r\n\r\n"],
  ["an invalid trailer line", "2\r\n{}\r\n0\r\nBad Trailer\r\n\r\n"],
  ["a trailer with a bare LF", "2\r\n{}\r\n0\r\nX-T: 1\n\r\n"],
  ["a trailer that smuggles Content-Length", "2\r\n{}\r\n0\r\nContent-Length: 5\r\n\r\nhello"],
  ["a last chunk without its final CRLF, then garbage", "2\r\n{}\r\n0\r\nGARBAGE", [400, 408]],
  ["a last chunk ended by bare LFs", "2\r\n{}\r\n0\n\n", [400, 408]],
  ["a semicolon without an extension name", "2;\r\n{}\r\n0\r\n\r\n"],
  ["an extension with a quoted CRLF", '2;a="\r\n"\r\n{}\r\n0\r\n\r\n'],
  ["only a size line", "2\r\n", [400, 408]],
  ["a body that stops after a chunk", "2\r\n{}\r\n", [400, 408]],
  ["a body over the limit in many chunks", MIB + MIB + "0\r\n\r\n", 413],
];

export const chunking: HostileClass = {
  name: "chunking",
  cases: bodies.map(([name, b, expect]): HostileCase => ({ name, raw: http("POST", "/users", te, b), expect: expect ?? 400 })),
};
