// Writing a Reply to the socket, once: one writeHead with every header, then the body.
// Streams are piped with backpressure; HEAD, 204 and 304 send headers only. The same code writes
// to an HTTP/2 stream through Node's compatibility API; the differences (no connection-specific
// headers, no lingering close on a shared socket) are in http2-compat.ts.
import { Buffer } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable, pipeline } from "node:stream";
import type { Context } from "../core/context.js";
import { endBodyOnDrain, endsOnDrain, type EndsOnDrain } from "../core/end-on-drain.js";
import { errorReply } from "../core/error-reply.js";
import { LOG_LEVELS } from "../util/logger.js";
import { armLingeringClose } from "./lingering-close.js";
import { assertHttp2HeaderValues, isHttp2Request, stripConnectionHeaders } from "./http2-compat.js";
import { Reply, toReply, type StreamBody } from "../core/reply.js";

/** True when this response must not carry a body (headers only). */
export function isBodyless(method: string, status: number): boolean {
  return method === "HEAD" || status === 204 || status === 304 || (status >= 100 && status < 200);
}

/**
 * Fill in Content-Length (for byte bodies) and Connection (while draining, HTTP/1 only: an
 * HTTP/2 session is sent a GOAWAY instead, and its replies lose every connection-specific header).
 */
export function finalizeHeaders(ctx: Context, reply: Reply, http2 = isHttp2Request(ctx.req)): void {
  const h = reply.headers;
  const body = reply.body;
  if (http2) stripConnectionHeaders(h);
  else if (ctx.runtime.draining) h["connection"] = "close";
  if (reply.status === 204 || reply.status < 200) {
    delete h["content-length"];
    return;
  }
  // A 304 may only carry the length of the 200 it stands for (RFC 9110 8.6): never invent one.
  if (reply.status === 304) return;
  if (h["content-length"] !== undefined) return;
  if (typeof body === "string") h["content-length"] = Buffer.byteLength(body);
  else if (body === null) h["content-length"] = 0;
  else if (body instanceof Uint8Array) h["content-length"] = body.byteLength;
}

/**
 * What the chain produced, as a Reply whose body is ready: a JSON reply a layer made is written
 * lazily, so a value JSON cannot hold (a BigInt, a cycle) fails here and becomes the uniform 500
 * instead of an exception on the socket's callback.
 */
export function settledReply(ctx: Context, value: Reply): Reply {
  try {
    const reply = value instanceof Reply ? value : toReply(value);
    if (reply.pendingJson) void reply.body;
    return reply;
  } catch (err) {
    return errorReply(ctx, err);
  }
}

export function writeReply(ctx: Context, value: Reply): void {
  const res = ctx.res!;
  const reply = settledReply(ctx, value);
  const http2 = isHttp2Request(ctx.req);
  finalizeHeaders(ctx, reply, http2);
  // Answering before the body was read: should the connection close after this answer (our
  // `connection: close`, the client's, a last request), discard the rest first (lingering-close.ts).
  // An HTTP/2 stream's unread body is refused by the stream alone; its socket is the session's.
  if (!ctx.req.complete && !http2 && hasBody(ctx.req)) armLingeringClose(ctx.req, ctx.runtime.limits);
  try {
    if (http2) assertHttp2HeaderValues(reply.headers);
    res.writeHead(reply.status, reply.headers as Record<string, string | number | string[]>);
  } catch (err) {
    // An invalid header (CR/LF, bad name) from a handler or layer: nothing was sent yet.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // HTTP/2 keeps the headers set before the bad one: the error answer must not carry them.
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    const fallback = errorReply(ctx, err);
    finalizeHeaders(ctx, fallback, http2);
    res.writeHead(fallback.status, fallback.headers as Record<string, string | number>);
    res.end(fallback.body as string);
    discardStream(reply.body);
    return;
  }
  const body = reply.body;
  if (body === null || isBodyless(ctx.method, reply.status)) {
    res.end();
    discardStream(body);
  } else if (typeof body === "string" || body instanceof Uint8Array) {
    res.end(body);
  } else {
    sendStream(ctx, res, body);
  }
}

function hasBody(req: IncomingMessage): boolean {
  const h = req.headers;
  return h["transfer-encoding"] !== undefined || (h["content-length"] !== undefined && h["content-length"] !== "0");
}

/**
 * A body that asked to be ended when the app drains (end-on-drain.ts) is held until its stream
 * closes, so App.closeLongLived can end it; one started after the drain began ends now.
 */
function trackLiveStream(ctx: Context, body: EndsOnDrain, source: Readable): void {
  const live = ctx.runtime.liveStreams;
  if (live === null) {
    endBodyOnDrain(body, ctx.runtime.logger);
    return;
  }
  live.add(body);
  source.once("close", () => live.delete(body));
}

function discardStream(body: unknown): void {
  if (body instanceof Readable) body.destroy();
}

function sendStream(ctx: Context, res: ServerResponse, body: StreamBody): void {
  const source = body instanceof Readable ? body : Readable.from(body, { objectMode: false });
  // The client went away before the (late) answer: nothing to write it to. pipeline() throws on
  // a destroyed destination on newer Node (seen on 24): here, an unhandled rejection.
  if (res.destroyed) {
    source.destroy();
    return;
  }
  if (endsOnDrain(body)) trackLiveStream(ctx, body, source);
  pipeline(source, res, (err) => {
    if (err && (err as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") logStreamFailure(ctx, err);
  });
}

/** The one log line of a stream body that failed while it was being sent (socket or fetch bridge). */
export function logStreamFailure(ctx: Context, err: Error): void {
  const logger = ctx.runtime.logger;
  if (LOG_LEVELS.error >= logger.level) {
    logger.log(LOG_LEVELS.error, "response stream failed", {
      req_id: ctx.requestId || undefined,
      method: ctx.method,
      route: ctx.route?.pattern ?? ctx.path,
      message: err.message,
    });
  }
}

