// The listener seam (Fastify's `serverFactory` is the model): `listen({ listener })` takes an
// object that builds the node server for an app, so the kernel only knows plain HTTP and the
// protocols that need more (HTTPS, HTTP/2 with HTTP/1.1 fallback: keel/tls) live outside it.
// A listener builds the server and applies the limits its protocol takes; the kernel then adds
// what every server gets (the uniform client-error answers, the peer address read at accept),
// listens, and drains it on shutdown through the listener's ConnectionDrain.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { SecureServerOptions } from "node:http2";
import type { Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "../util/logger.js";
import { applyServerLimits, serverConstructionOptions, type ResolvedServerLimits } from "./server-limits.js";

/** How a listening server's connections are retired on shutdown, whatever the protocol. */
export interface ConnectionDrain {
  /** Shutdown began: ask clients to stop sending new requests on open connections. */
  begin(): void;
  /** Close what has no request in flight (called repeatedly while draining). */
  closeIdle(): void;
  /** The deadline passed: cut everything off. */
  closeAll(): void;
}

/** What a listener is given to build an app's server. */
export interface ListenerBinding {
  /** The app's request handler: every request goes to it, whatever the protocol. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The app's logger. */
  readonly logger: Logger;
  /** The connection limits of listen(), defaults filled in and checked. */
  readonly limits: ResolvedServerLimits;
  /** listen({ server }): raw options for the server's constructor; they win over the limits. */
  readonly serverOptions: ServerOptions | SecureServerOptions | undefined;
  /**
   * The app's 'upgrade' listener when it has WebSocket routes and their protocol, else null (then
   * node:http serves an Upgrade request as an ordinary one). A listener that cannot carry
   * upgrades leaves it aside.
   */
  readonly upgradeListener: ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | null;
}

/** The server a listener built (not yet listening), and how to drain its connections. */
export interface ListenerServer {
  readonly server: NetServer;
  /** Default: node:http's own (closeIdleConnections, closeAllConnections), for an http or https Server. */
  readonly drain?: ConnectionDrain;
}

/** What `listen({ listener })` takes: `https()` and `http2()` from keel/tls, or your own. */
export interface Listener {
  /**
   * The URL scheme the server speaks (ListeningServer.url). "https" also says the requests'
   * sockets are TLS sockets: their peer address is read on "secureConnection" rather than "connection".
   */
  readonly scheme: "http" | "https";
  /**
   * Build the server for the app (called once per listen()). The kernel then installs the uniform
   * client-error answers on it and reads each socket's peer address at accept.
   */
  create(binding: ListenerBinding): ListenerServer | Promise<ListenerServer>;
}

/** The kernel's own listener: plain node:http. */
export const HTTP_LISTENER: Listener = {
  scheme: "http",
  create(b) {
    const server = createServer({ ...serverConstructionOptions(b.limits), ...(b.serverOptions as ServerOptions) }, b.handler);
    applyServerLimits(server, b.limits);
    if (b.upgradeListener !== null) server.on("upgrade", b.upgradeListener);
    return { server };
  },
};

/** node:http's servers (HTTPS ones too) track their own connections: idle ones close, the rest finish. */
export function nodeHttpDrain(server: NetServer): ConnectionDrain {
  const s = server as NetServer & Partial<Pick<Server, "closeIdleConnections" | "closeAllConnections">>;
  return {
    begin() {},
    closeIdle: () => s.closeIdleConnections?.(),
    closeAll: () => s.closeAllConnections?.(),
  };
}
