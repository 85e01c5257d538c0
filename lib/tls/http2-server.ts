// The HTTP/2 server behind `listen({ listener: http2(tls) })`: `http2.createSecureServer` with
// `allowHTTP1`, so ALPN picks h2 and a client that only speaks HTTP/1.1 is served by node:http's
// own machinery on the same port. Both reach the same `app.handler`.
//
// node:http's connection limits (header and request timeouts, keep-alive, header size, requests
// per socket) are server properties that its HTTP/1 code reads, so they are set on this server
// too. HTTP/2 sessions get their own equivalents: SETTINGS for header size and concurrent
// streams, and a session with no open stream for `keepAliveTimeout` is closed (GOAWAY). The TLS
// handshake, for either protocol, must finish within `headersTimeout` (Node's default is 120 s).
//
// Header size: SETTINGS_MAX_HEADER_LIST_SIZE advertises `maxHeaderSize`, the number HTTP/1.1 is
// held to, but node:http2 only enforces it once the client has acknowledged the SETTINGS (its
// reset is ENHANCE_YOUR_CALM, with no answer); a request sent before that (a fresh connection's
// first) would be served up to Node's own 64 KiB. Such a request is measured here, as RFC 9113
// §6.5.2 counts (name + value + 32 per field, pseudo-headers included), and answered with the
// uniform 431 that HTTP/1.1 gets, without reaching the app.
//
// Draining: HTTP/1 responses carry `connection: close` (write.ts); an HTTP/2 session is told to
// go away instead (`session.close()` sends GOAWAY and lets open streams finish), at once for the
// sessions already open and after the first stream for those opened during the pre-stop delay.
//
// Request timeout: node:http's `requestTimeout` only watches HTTP/1 sockets, and a session's
// timer is re-armed by any frame, so each HTTP/2 stream gets its own clock (see
// armRequestTimeout): a request still incomplete after `requestTimeout` is answered with the
// uniform 408 and its stream cancelled, so a stalled upload cannot hold a handler, its temp files
// and a stream slot forever. A stream only starts once its whole header block has arrived.
import type { createSecureServer as CreateSecureServer, Http2SecureServer, Http2ServerRequest, SecureServerOptions, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket, TlsOptions as NodeTlsOptions } from "node:tls";
import type { Logger } from "../index.js";
import { clientErrorFor, errorBodyJson, isHttp2Request, LOG_LEVELS, newErrorId, type ConnectionDrain, type ResolvedServerLimits } from "../plugin.js";

/** Concurrent streams one session may open (Node's default is unbounded). */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 100;

export interface BuiltHttp2Server {
  readonly server: Http2SecureServer;
  readonly drain: ConnectionDrain;
}

/** RST_STREAM error code CANCEL (RFC 9113 §7), as http2.constants.NGHTTP2_CANCEL; node:http2 is loaded lazily. */
const NGHTTP2_CANCEL = 0x8;
/** RST_STREAM error code NO_ERROR: the answer is complete, stop sending the request (RFC 9113 §8.1). */
const NGHTTP2_NO_ERROR = 0x0;

/** How long a timed-out request's 408 may take to go out before its stream is cancelled anyway. */
const RESPONSE_GRACE_MS = 1_000;

/** Per session: its open streams (for the idle timeout). */
interface SessionState {
  open: number;
}

export function createHttp2Server(
  createSecureServer: typeof CreateSecureServer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ResolvedServerLimits,
  tls: NodeTlsOptions,
  raw: SecureServerOptions | undefined,
  logger?: Logger,
): BuiltHttp2Server {
  const options: SecureServerOptions = {
    ...tls,
    allowHTTP1: true,
    handshakeTimeout: limits.headersTimeout,
    ...raw,
    settings: {
      maxConcurrentStreams: DEFAULT_MAX_CONCURRENT_STREAMS,
      maxHeaderListSize: limits.maxHeaderSize,
      ...raw?.settings,
    },
  };
  // HTTP/2 requests get their header limit and request timeout here, where the request object is
  // at hand (the HTTP/1.1 fallback has node:http's own).
  const headerLimit = options.settings!.maxHeaderListSize ?? limits.maxHeaderSize;
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (isHttp2Request(req)) {
      const h2req = req as unknown as Http2ServerRequest;
      if (headerListSize(h2req.rawHeaders) > headerLimit) {
        refuseHeaders(h2req, logger);
        return;
      }
      if (limits.requestTimeout > 0) armRequestTimeout(h2req, limits.requestTimeout, logger);
    }
    handler(req, res);
  };
  const server = createSecureServer(options, serve as unknown as Parameters<typeof CreateSecureServer>[1]);
  applyHttp1Limits(server, limits);

  const sessions = new Map<ServerHttp2Session, SessionState>();
  const sockets = new Set<TLSSocket>();
  let draining = false;

  server.on("secureConnection", (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("session", (session: ServerHttp2Session) => {
    const state: SessionState = { open: 0 };
    sessions.set(session, state);
    session.once("close", () => sessions.delete(session));
    if (limits.keepAliveTimeout > 0) {
      // Fires after that long without a frame either way; a session that is only waiting on a
      // slow handler is not idle, and its timer re-arms when the stream's frames flow.
      session.setTimeout(limits.keepAliveTimeout, () => {
        if (state.open === 0) session.close();
      });
    }
    session.on("stream", (stream: ServerHttp2Stream) => {
      state.open++;
      stream.once("close", () => state.open--);
      // Opened during the drain: this stream is answered, then the session goes away.
      if (draining && !session.closed) session.close();
    });
  });

  const drain: ConnectionDrain = {
    begin() {
      draining = true;
      for (const session of sessions.keys()) if (!session.closed) session.close();
    },
    closeIdle() {
      // The HTTP/1.1 connections, through node:http (a method of Node 20's Http2SecureServer
      // with allowHTTP1 that @types/node does not declare).
      (server as Http2SecureServer & { closeIdleConnections?: () => void }).closeIdleConnections?.();
      for (const [session, state] of sessions) if (state.open === 0 && !session.destroyed) session.close();
    },
    closeAll() {
      for (const session of sessions.keys()) session.destroy();
      for (const socket of sockets) socket.destroy();
    },
  };
  return { server, drain };
}

/**
 * Give the request until `ms` from now to be received in full (END_STREAM). The timer is cleared
 * when the stream's readable side ends or the stream closes, and is unref'd.
 */
function armRequestTimeout(req: Http2ServerRequest, ms: number, logger: Logger | undefined): void {
  const stream = req.stream;
  // HEADERS carried END_STREAM: the request was complete when the stream began.
  if (stream.endAfterHeaders) return;
  const timer = setTimeout(onRequestTimeout, ms, req, logger);
  timer.unref();
  const clear = (): void => clearTimeout(timer);
  stream.once("end", clear);
  stream.once("close", clear);
}

/** The header list size of RFC 9113 §6.5.2, as node:http2 counts it against the SETTINGS. */
function headerListSize(raw: string[]): number {
  let size = 0;
  for (let i = 0; i < raw.length; i++) size += raw[i]!.length;
  return size + (raw.length >> 1) * 32;
}

/** As node:http's client-error answers (client-error.ts): logged at info with an error id. */
function logClientError(logger: Logger | undefined, stream: ServerHttp2Stream, status: number, type: string, code: string, errorId: string): void {
  if (logger !== undefined && LOG_LEVELS.info >= logger.level) {
    logger.log(LOG_LEVELS.info, "client error", { error_id: errorId, status, type, code, remote_addr: stream.session?.socket?.remoteAddress });
  }
}

/**
 * The uniform 431 for an HTTP/2 request over the header limit; the app never sees it. When the
 * request has a body still coming, RST_STREAM NO_ERROR after the answer tells the client to stop.
 */
function refuseHeaders(req: Http2ServerRequest, logger: Logger | undefined): void {
  const stream = req.stream;
  const error = clientErrorFor("HPE_HEADER_OVERFLOW");
  const errorId = newErrorId();
  logClientError(logger, stream, error.status, error.type, "HPE_HEADER_OVERFLOW", errorId);
  if (stream.closed || stream.destroyed) return;
  const body = errorBodyJson(error, errorId, false);
  stream.respond({ ":status": error.status, "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  stream.end(body, () => {
    if (!stream.closed && stream.state.remoteClose !== 1) stream.close(NGHTTP2_NO_ERROR);
  });
}

function onRequestTimeout(req: Http2ServerRequest, logger: Logger | undefined): void {
  const stream = req.stream;
  if (stream.closed || stream.destroyed) return;
  // The client sent all of it and the handler has not read it yet: no delay of the client's.
  if (stream.state.remoteClose === 1) return;
  const error = clientErrorFor("ERR_HTTP_REQUEST_TIMEOUT");
  const errorId = newErrorId();
  logClientError(logger, stream, error.status, error.type, "ERR_HTTP_REQUEST_TIMEOUT", errorId);
  // The compatibility layer would end the request normally when its stream closes, handing a
  // truncated body to the handler: fail its body read instead. (A handler that is not reading
  // has no "error" listener: the no-op keeps that from throwing.)
  let grace: NodeJS.Timeout | undefined;
  let cancelled = false;
  const cancel = (): void => {
    if (cancelled) return;
    cancelled = true;
    clearTimeout(grace);
    stream.close(NGHTTP2_CANCEL);
    req.on("error", ignore);
    req.destroy(error);
  };
  // The handler's response already started: it cannot become a 408.
  if (stream.headersSent) {
    cancel();
    return;
  }
  // The 408 goes out whole (END_STREAM), then RST_STREAM tells the client to stop sending and
  // frees the stream's slot in the session. A client that does not take the 408 in (no flow
  // control window left) is cancelled after a short grace all the same.
  const body = errorBodyJson(error, errorId, false);
  stream.respond({ ":status": error.status, "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  grace = setTimeout(cancel, RESPONSE_GRACE_MS);
  grace.unref();
  stream.end(body, cancel);
}

function ignore(): void {}

/** The node:http limits, as the properties its HTTP/1 code reads from the server it serves for. */
function applyHttp1Limits(server: Http2SecureServer, limits: ResolvedServerLimits): void {
  const s = server as Http2SecureServer & Record<string, unknown>;
  s["headersTimeout"] = limits.headersTimeout;
  s["requestTimeout"] = limits.requestTimeout;
  s["keepAliveTimeout"] = limits.keepAliveTimeout;
  s["maxHeaderSize"] = limits.maxHeaderSize;
  s["maxRequestsPerSocket"] = limits.maxRequestsPerSocket;
  // Read when the server starts listening (node:http's connection tracking).
  s["connectionsCheckingInterval"] = limits.timeoutCheckInterval;
  // As keel/plugin's serverConstructionOptions(): the app checks Host itself; repeated headers are joined.
  s["requireHostHeader"] = false;
  s["joinDuplicateHeaders"] = true;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
}
