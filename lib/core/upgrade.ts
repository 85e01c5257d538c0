// The kernel's side of WebSocket routes. `route.ws(...)` declares a GET route whose layers and
// extractors run on the upgrade request as on any other (auth, rate limits, request ids); when
// they pass, the chain's last step answers with an UpgradeReply instead of calling the handler.
// The app then hands the raw socket to the registered acceptor (the `keel/ws` feature: the
// handshake and RFC 6455 itself) and calls the handler with the open connection and the
// extracted values. A refused upgrade is an ordinary reply: the uniform error body, written on
// the socket by the normal writer. The kernel knows only the interfaces below, so an app that
// declares no WebSocket route carries none of the protocol.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { Reply, type ReplyHeaders } from "./reply.js";

/** What a WebSocket handler receives (implemented by `keel/ws`). */
export interface WebSocketConnection {
  /** 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued for the socket; `send` returns false above the high-water mark. */
  readonly bufferedAmount: number;
  /** The negotiated subprotocol ("" when none). */
  readonly protocol: string;
  send(data: string | Uint8Array, cb?: (err?: Error | null) => void): boolean;
  ping(data?: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: "message", listener: (data: Buffer | string, isBinary: boolean) => void): this;
  on(event: "close", listener: (code: number, reason: string) => void): this;
  on(event: "error", listener: (err: Error) => void): this;
  on(event: "ping" | "pong", listener: (data: Buffer) => void): this;
  on(event: "drain", listener: () => void): this;
}

/** Why an upgrade request cannot be accepted: answered as the uniform error with this status. */
export interface UpgradeRefusal {
  readonly status: number;
  /** The error type of the uniform body (default: "forbidden" for 403, else "bad_request"). */
  readonly type?: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** The protocol side, registered by `keel/ws` with `app.useWebSockets(acceptor)`. */
export interface WebSocketAcceptor {
  /** Check the handshake headers without touching the socket; null when it may proceed. */
  check(req: IncomingMessage, routeOptions: Readonly<Record<string, unknown>>): UpgradeRefusal | null;
  /** Complete the handshake (101 with `headers` added) and return the open connection. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, routeOptions: Readonly<Record<string, unknown>>, headers: ReplyHeaders): WebSocketConnection;
  /** Close every open connection with 1001 (going away); terminate what is left after `timeoutMs`. */
  closeAll(timeoutMs: number): Promise<void>;
}

/** The reply of an accepted upgrade: the extracted values, for the handler once the socket is open. */
export class UpgradeReply extends Reply<101, undefined> {
  readonly args: readonly unknown[];
  constructor(args: readonly unknown[]) {
    super(101, null);
    this.args = args;
  }
}

/** Requests that arrived through the server's 'upgrade' event (they have no ServerResponse of their own). */
const upgrading = new WeakSet<IncomingMessage>();

export function markUpgrading(req: IncomingMessage): void {
  upgrading.add(req);
}

export function isUpgrading(req: IncomingMessage): boolean {
  return upgrading.has(req);
}
