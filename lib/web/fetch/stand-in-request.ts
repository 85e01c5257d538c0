// A Web Request as the IncomingMessage keel's front door reads (app.contextFor): the same kind of
// stand-in as app.inject's, except that the body streams from request.body instead of a buffer.
import { Buffer } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";

/**
 * request.body as a Readable that reads one chunk per `read()` call: the reader is pulled only
 * as fast as keel consumes (its body limit pauses it), and destroying the Readable cancels it.
 */
function bodyReadable(body: ReadableStream<Uint8Array>): Readable {
  const reader = body.getReader();
  return new Readable({
    read() {
      reader.read().then(
        (next) => {
          if (next.done) this.push(null);
          else this.push(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        },
        (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    },
    destroy(err, callback) {
      reader.cancel(err ?? undefined).catch(() => undefined);
      callback(err);
    },
  });
}

const EMPTY_BODY = (): Readable => Readable.from([], { objectMode: false });

/** The stand-in request: method, origin-form target, lowercase headers, Host from the URL when absent. */
export function standInRequest(request: Request, remoteAddress: string): IncomingMessage {
  const url = new URL(request.url);
  const headers: Record<string, string | string[]> = Object.create(null);
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers["set-cookie"] !== undefined) headers["set-cookie"] = request.headers.getSetCookie();
  if (headers["host"] === undefined) headers["host"] = url.host;
  const body = request.body;
  // A Request built from a string or a stream has no Content-Length: on the wire it would be
  // chunked, and keel reads a body without either header as empty (RFC 9112 6.3).
  if (body !== null && headers["content-length"] === undefined && headers["transfer-encoding"] === undefined) {
    headers["transfer-encoding"] = "chunked";
  }
  const req = (body === null ? EMPTY_BODY() : bodyReadable(body)) as unknown as IncomingMessage & Record<string, unknown>;
  req.method = request.method;
  req.url = url.pathname + url.search;
  req.headers = headers;
  req.httpVersion = "1.1";
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  // No socket: the peer address is what the caller says (unknown by default), and the request
  // is not `secure` (like a request that reached keel through a TLS-terminating proxy).
  Object.defineProperty(req, "socket", { value: { remoteAddress } });
  return req;
}
