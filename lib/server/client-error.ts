// Requests Node's parser refuses never reach a handler: malformed request lines or headers,
// headers over maxHeaderSize, a request that took longer than headersTimeout/requestTimeout, an
// Expect the server does not meet. Node answers those with a bare status line; here they get
// the uniform error body with an error_id, are logged, and the socket is closed gracefully.
import type { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ApiError, errorBodyJson, newErrorId } from "../core/errors.js";
import { isHttp2Request } from "./http2-compat.js";
import { LOG_LEVELS } from "../util/logger.js";
import type { AppRuntime } from "../core/runtime.js";

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Content Too Large",
  405: "Method Not Allowed",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
};

/** The uniform error for one of Node's parser or timeout error codes. */
export function clientErrorFor(code: string | undefined): ApiError {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(431, "request_header_fields_too_large", "Request headers are too large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(408, "timeout", "The request was not received in time");
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ApiError(413, "payload_too_large", "Chunk extensions are too large");
    default:
      return ApiError.badRequest("Malformed HTTP request");
  }
}

/** The raw bytes of a uniform error answer that closes the connection. */
function errorResponseBytes(err: ApiError, errorId: string, production: boolean): string {
  const body = errorBodyJson(err, errorId, production);
  return (
    `HTTP/1.1 ${err.status} ${REASONS[err.status] ?? "Error"}\r\n` +
    "content-type: application/json\r\n" +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    "connection: close\r\n\r\n" +
    body
  );
}

/**
 * Install the uniform answers for parser errors, timeouts and unmet expectations on `server`: a
 * node:http or node:https server, or an HTTP/2 server (whose HTTP/1.1 connections raise the same
 * events; its HTTP/2 streams raise `connect` and `checkExpectation` with a response instead).
 */
export function installClientErrorHandler(server: EventEmitter, runtime: AppRuntime): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(runtime, err, socket as Socket));
  // CONNECT (a proxy's method): without a listener Node destroys the socket without a word.
  server.on("connect", (req: IncomingMessage, socket: Duplex) => {
    const error = new ApiError(405, "method_not_allowed", "CONNECT is not supported");
    const errorId = newErrorId();
    logClientError(runtime, error, errorId, "connect", req.socket);
    // Over HTTP/2, CONNECT is a stream like any other and the second argument its response.
    if (isHttp2Request(req)) {
      answerOnStream(socket as unknown as ServerResponse, error, errorId, runtime.production);
      return;
    }
    const s = socket as Socket;
    if (s.writable) s.end(errorResponseBytes(error, errorId, runtime.production));
    else s.destroy();
  });
  // Expect other than 100-continue: Node would answer a bare 417.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    const error = new ApiError(417, "expectation_failed", "Only Expect: 100-continue is supported");
    const errorId = newErrorId();
    const body = errorBodyJson(error, errorId, runtime.production);
    logClientError(runtime, error, errorId, "expectation", req.socket);
    if (isHttp2Request(req)) {
      answerOnStream(res, error, errorId, runtime.production);
      return;
    }
    res.writeHead(417, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
    res.end(body);
  });
}

/** The uniform error on an HTTP/2 stream: no `connection` header there (RFC 9113 §8.2.2). */
function answerOnStream(res: ServerResponse, error: ApiError, errorId: string, production: boolean): void {
  const body = errorBodyJson(error, errorId, production);
  const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  for (const [name, value] of Object.entries(error.headers ?? {})) headers[name] = value;
  res.writeHead(error.status, headers);
  res.end(body);
}

function answerClientError(runtime: AppRuntime, err: NodeJS.ErrnoException, socket: Socket): void {
  const code = err.code;
  // The client went away: nothing to answer and nothing worth a log line.
  if (code === "ECONNRESET" || code === "EPIPE" || !socket.writable) {
    socket.destroy();
    return;
  }
  // A response of ours already started on this socket: raw bytes would corrupt it.
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (current !== null && current !== undefined && current.headersSent) {
    socket.destroy();
    return;
  }
  // The bad bytes came after a complete request still being answered (pipelined garbage, or
  // whatever follows a `Connection: close` request): that request's answer goes out first, and
  // the connection closes after it. Timeouts are the exception: they cut the request itself.
  if (current !== null && current !== undefined && current.req?.complete === true && code !== "ERR_HTTP_REQUEST_TIMEOUT") {
    current.shouldKeepAlive = false;
    socket.pause();
    return;
  }
  const error = clientErrorFor(code);
  const errorId = newErrorId();
  logClientError(runtime, error, errorId, code ?? "unknown", socket);
  socket.end(errorResponseBytes(error, errorId, runtime.production));
  // Whatever else the client sends is unparseable: give it a moment to read the answer, then close.
  const timer = setTimeout(() => socket.destroy(), 1_000);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}

function logClientError(runtime: AppRuntime, error: ApiError, errorId: string, code: string, socket: Socket | null): void {
  const logger = runtime.logger;
  if (LOG_LEVELS.info < logger.level) return;
  logger.log(LOG_LEVELS.info, "client error", {
    error_id: errorId,
    status: error.status,
    type: error.type,
    code,
    remote_addr: socket?.remoteAddress,
  });
}
