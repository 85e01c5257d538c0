// Invalid chunked bodies: bad sizes, missing or bare line ends, oversized extensions, trailers.
import { http, type HostileClass } from "../harness.js";

const te: Array<readonly [string, string]> = [["Transfer-Encoding", "chunked"], ["Content-Type", "application/json"]];
const bodies: Array<[string, string]> = [
  ["a size that is not hex", "zz\r\n{}\r\n0\r\n\r\n"],
  ["a negative size", "-2\r\n{}\r\n0\r\n\r\n"],
  ["a 0x prefix", "0x2\r\n{}\r\n0\r\n\r\n"],
  ["a size with a space inside", "1 1\r\n{}\r\n0\r\n\r\n"],
  ["a size larger than the data", "ff\r\n{}\r\n0\r\n\r\n"],
  ["a size smaller than the data", "1\r\n{}\r\n0\r\n\r\n"],
  ["no CRLF after the data", "2\r\n{}0\r\n\r\n"],
  ["a bare LF after the size", "2\n{}\r\n0\r\n\r\n"],
  ["a bare CR after the size", "2\r{}\r\n0\r\n\r\n"],
  ["a 64-bit overflowing size", "ffffffffffffffffff\r\n{}\r\n0\r\n\r\n"],
  ["a size of 2^64-1", "ffffffffffffffff\r\n{}\r\n0\r\n\r\n"],
  ["an extension with a bare LF", "2;ext\n{}\r\n0\r\n\r\n"],
  ["an oversized chunk extension", `2;${"x".repeat(20_000)}\r\n{}\r\n0\r\n\r\n`],
  ["an invalid trailer line", "2\r\n{}\r\n0\r\nBad Trailer\r\n\r\n"],
  ["a trailer that smuggles Content-Length", "2\r\n{}\r\n0\r\nContent-Length: 5\r\n\r\nhello"],
  ["a last chunk without its final CRLF, then garbage", "2\r\n{}\r\n0\r\nGARBAGE"],
  ["a semicolon without an extension name", "2;\r\n{}\r\n0\r\n\r\n"],
  ["an extension with a quoted CRLF", '2;a="\r\n"\r\n{}\r\n0\r\n\r\n'],
  ["only a size line", "2\r\n"],
  ["a body over the limit in many chunks", `${"100000\r\n" + "x".repeat(0x100000) + "\r\n"}${"100000\r\n" + "x".repeat(0x100000) + "\r\n"}0\r\n\r\n`],
];

const WAITS = new Set(["only a size line", "a size larger than the data", "a size of 2^64-1", "a last chunk without its final CRLF, then garbage"]);

export const chunking: HostileClass = {
  name: "chunking",
  cases: bodies.map(([name, b]) => ({
    name,
    raw: http("POST", "/users", te, b),
    // A body cut short (or a size so large the data never completes it, or a trailer section that
    // never ends) waits for the rest: the request timeout answers it (408); otherwise 400/413.
    expect: WAITS.has(name) ? [400, 408, 413] : name.includes("over the limit") ? 413 : [400, 413],
  })),
};
