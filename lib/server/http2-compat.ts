// What differs when a request arrives through Node's HTTP/2 compatibility API
// (Http2ServerRequest / Http2ServerResponse) instead of node:http. The request path is the same;
// only the few places that touch HTTP/1 framing ask `isHttp2Request` and take another branch:
// connection-specific headers are forbidden in HTTP/2 (RFC 9113 §8.2.2) and Node throws on most
// of them at `respond()`, a header value with CR/LF is dropped silently instead of refused, and
// the "socket" of an HTTP/2 request is a proxy to the session's socket, shared by every stream.
import type { IncomingMessage } from "node:http";
import type { ReplyHeaders } from "../core/reply.js";

/**
 * True when `req` came over an HTTP/2 stream. One field read for HTTP/1 requests (the version
 * check fails first); the stream (which only an Http2ServerRequest has; checked by property so
 * node:http2 is not loaded for apps that never serve it) tells an HTTP/2 stream from an HTTP/1 request line that
 * merely says "HTTP/2.0" (llhttp parses those; they are refused as an unsupported version).
 */
export function isHttp2Request(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2 && (req as { stream?: unknown }).stream !== undefined;
}

/** Headers that only mean something on an HTTP/1 connection (RFC 9113 §8.2.2). */
const CONNECTION_SPECIFIC = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"] as const;

/**
 * Remove the connection-specific headers from a reply about to go out on an HTTP/2 stream: a
 * layer's `connection: close` (the 413 body limit, a drain) means "close the connection" in
 * HTTP/1 and nothing in HTTP/2, where Node would throw or warn on it. `te` may only say "trailers".
 */
export function stripConnectionHeaders(headers: ReplyHeaders): void {
  for (const name of CONNECTION_SPECIFIC) {
    if (headers[name] !== undefined) delete headers[name];
  }
  const te = headers["te"];
  if (te !== undefined && String(te).trim().toLowerCase() !== "trailers") delete headers["te"];
}

/**
 * Throw on a header value that HTTP/1 would refuse (CR, LF, NUL, other controls): node:http
 * throws and the writer answers the uniform 500, while the HTTP/2 layer would drop the header
 * without a word. Checked on HTTP/2 replies only, so both protocols fail the same way.
 */
export function assertHttp2HeaderValues(headers: ReplyHeaders): void {
  for (const name in headers) {
    const v = headers[name]!;
    if (typeof v === "number") continue;
    if (typeof v === "string") {
      if (!isSafeText(v)) throw invalidValue(name);
      continue;
    }
    for (const item of v) if (!isSafeText(item)) throw invalidValue(name);
  }
}

/** Field content as RFC 9110 §5.5 allows it (and node:http checks): HTAB, SP, visible ASCII, obs-text 0x80-0xFF. */
function isSafeText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9) || c === 127 || c > 255) return false;
  }
  return true;
}

function invalidValue(name: string): TypeError {
  const err = new TypeError(`Invalid character in header content ["${name}"]`) as TypeError & { code: string };
  err.code = "ERR_INVALID_CHAR";
  return err;
}
