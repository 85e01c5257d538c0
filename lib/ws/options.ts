// Options of the WebSocket feature: the handshake policy (what may upgrade) and the settings
// of each accepted connection.
import type { IncomingMessage } from "node:http";
import type { PerMessageDeflateOptions } from "./deflate-negotiation.js";
import type { WebSocketRegistry } from "./registry.js";
import type { HeartbeatOptions } from "./websocket.js";

/** Picks a subprotocol from the client's offer (in the client's order); undefined/false: none. */
export type ProtocolChooser = (offered: readonly string[], req: IncomingMessage) => string | false | undefined;

/** What may upgrade: checked by checkUpgradeRequest() and again by acceptWebSocket(). */
export interface WebSocketServerOptions {
  /**
   * Allowed browser origins (cross-site WebSocket hijacking protection), compared in their
   * serialized form (`https://app.example.com`, no trailing slash, case-insensitive), or a
   * predicate, or "*" for any. Default: same origin only (the Origin's host equals the Host
   * header). A refused origin is answered 403.
   */
  origins?: readonly string[] | ((origin: string) => boolean) | "*";
  /**
   * Requests without an Origin header come from non-browser clients, which can send any Origin
   * they like anyway; they are allowed by default. Set false to require one.
   */
  allowMissingOrigin?: boolean;
  /** Subprotocols in the server's order of preference, or a chooser. Default: none selected. */
  protocols?: readonly string[] | ProtocolChooser;
  /** permessage-deflate (RFC 7692): true for the defaults, or options. Default: off. */
  perMessageDeflate?: boolean | PerMessageDeflateOptions;
}

/** Everything acceptWebSocket() takes: the handshake policy plus the connection's settings. */
export interface WebSocketOptions extends WebSocketServerOptions {
  /** Largest incoming message (and frame), before and after inflation; more → close 1009. Default 1 MiB. */
  maxPayload?: number;
  /** send() returns false while bufferedAmount is above this (default 16 KiB); 'drain' follows. */
  highWaterMark?: number;
  /**
   * The connection stops reading from its socket while bufferedAmount is above this many bytes
   * (default 1 MiB) and reads again once it is back to the high-water mark, so a peer that sends
   * but never reads cannot grow the server's memory. It is also the limit past which rooms drop
   * (or close, if asked) a member's broadcasts.
   */
  maxBufferedAmount?: number;
  /**
   * permessage-deflate: bytes a connection may inflate per second (default 16 MiB), with a burst
   * of one second's worth (at least maxPayload). Past it the connection stops reading until the
   * budget has refilled, so small messages that inflate to large ones cannot hold a core.
   */
  maxInflateRate?: number;
  /** After a close frame is sent, wait this long for the peer before destroying the socket (default 10 s). */
  closeTimeoutMs?: number;
  /** Dead-peer detection with pings. Default: off. */
  heartbeat?: HeartbeatOptions;
  /** Registry the connection joins while it is open (for closeAll() on shutdown). */
  registry?: WebSocketRegistry;
  /** Extra headers for the 101 response (e.g. Set-Cookie from layers that ran before the upgrade). */
  headers?: Record<string, string | readonly string[]>;
}

export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
export const DEFAULT_HIGH_WATER_MARK = 16 * 1024;
export const DEFAULT_MAX_BUFFERED_AMOUNT = 1024 * 1024;
export const DEFAULT_MAX_INFLATE_RATE = 16 * 1024 * 1024;
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;
