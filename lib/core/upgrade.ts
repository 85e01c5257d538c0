// The request model's side of WebSocket routes: what a handler receives and what the protocol
// (keel/ws) gives the upgrade mechanics (lib/server/upgrade.ts). See upgrade-protocol.ts.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { ReplyHeaders } from "./reply.js";

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
