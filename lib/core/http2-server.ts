// The HTTP/2 server behind `listen({ tls, http2: true })`: `http2.createSecureServer` with
// `allowHTTP1`, so ALPN picks h2 and a client that only speaks HTTP/1.1 is served by node:http's
// own machinery on the same port. Both reach the same `app.handler`.
//
// node:http's connection limits (header and request timeouts, keep-alive, header size, requests
// per socket) are server properties that its HTTP/1 code reads, so they are set on this server
// too. HTTP/2 sessions get their own equivalents: SETTINGS for header size and concurrent
// streams, and a session with no open stream for `keepAliveTimeout` is closed (GOAWAY).
//
// Draining: HTTP/1 responses carry `connection: close` (write.ts); an HTTP/2 session is told to
// go away instead (`session.close()` sends GOAWAY and lets open streams finish), at once for the
// sessions already open and after the first stream for those opened during the pre-stop delay.
import type { createSecureServer as CreateSecureServer, Http2SecureServer, SecureServerOptions, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket, TlsOptions as NodeTlsOptions } from "node:tls";
import type { ResolvedServerLimits } from "./server-limits.js";

/** Concurrent streams one session may open (Node's default is unbounded). */
export const DEFAULT_MAX_CONCURRENT_STREAMS = 100;

/** How a listening server's connections are retired on shutdown, whatever the protocol. */
export interface ConnectionDrain {
  /** Shutdown began: ask clients to stop sending new requests on open connections. */
  begin(): void;
  /** Close what has no request in flight (called repeatedly while draining). */
  closeIdle(): void;
  /** The deadline passed: cut everything off. */
  closeAll(): void;
}

export interface Http2Listener {
  readonly server: Http2SecureServer;
  readonly drain: ConnectionDrain;
}

/** Per session: its open streams (for the idle timeout). */
interface SessionState {
  open: number;
}

export function createHttp2Listener(
  createSecureServer: typeof CreateSecureServer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ResolvedServerLimits,
  tls: NodeTlsOptions,
  raw: SecureServerOptions | undefined,
): Http2Listener {
  const options: SecureServerOptions = {
    ...tls,
    allowHTTP1: true,
    ...raw,
    settings: {
      maxConcurrentStreams: DEFAULT_MAX_CONCURRENT_STREAMS,
      maxHeaderListSize: limits.maxHeaderSize,
      ...raw?.settings,
    },
  };
  const server = createSecureServer(options, handler as unknown as Parameters<typeof CreateSecureServer>[1]);
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
  // As serverConstructionOptions(): the app checks Host itself; repeated headers are joined.
  s["requireHostHeader"] = false;
  s["joinDuplicateHeaders"] = true;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
}
