// Listening and graceful shutdown. When the signal aborts (or the shutdown promise settles):
// readiness flips to draining; for the pre-stop delay the server keeps accepting and answering
// (every HTTP/1 response carries `connection: close` and every HTTP/2 session gets a GOAWAY, so
// clients retire their connections and a load balancer sees /ready answer 503); then the listener
// stops accepting, idle connections close, in-flight requests finish, and after the deadline
// whatever is left is cut off and counted. Then the shutdown hooks run and `closed` resolves. The
// connection limits (server-limits.ts) and the uniform answers to parser errors (client-error.ts)
// are set here. The server is plain node:http unless `listener` builds another (listener.ts):
// HTTPS and HTTP/2 are keel/tls's `https()` and `http2()`.
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from "node:http";
import type { SecureServerOptions } from "node:http2";
import type { AddressInfo, Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";
import type { AppRuntime } from "../core/runtime.js";
import { LOG_LEVELS } from "../util/logger.js";
import { installClientErrorHandler } from "./client-error.js";
import { HTTP_LISTENER, nodeHttpDrain, type ConnectionDrain, type Listener } from "./listener.js";
import { settlePeerAddresses } from "./peer-address.js";
import { resolveServerLimits, type ResolvedServerLimits, type ServerLimits } from "./server-limits.js";

export const DEFAULT_SHUTDOWN_TIMEOUT = 10_000;

export interface ListenOptions extends ServerLimits {
  /** Port (default 0: a free port). */
  port?: number;
  /** Host (default 127.0.0.1). */
  host?: string;
  /** Aborting it starts the graceful shutdown. */
  signal?: AbortSignal;
  /** Settling it starts the graceful shutdown (the spec's "shutdown future"). */
  shutdown?: PromiseLike<unknown>;
  /** How long in-flight requests get to finish, ms (default 10 000). */
  shutdownTimeout?: number;
  /**
   * On shutdown, keep accepting and serving this long (ms, default 0) while /ready answers 503,
   * so a load balancer takes the instance out before its listener closes.
   */
  preStopDelay?: number;
  /**
   * What builds the server (default: plain node:http). HTTPS and HTTP/2 with HTTP/1.1 fallback
   * are `https({ key, cert })` and `http2({ key, cert })` from keel/tls; a listener of your own
   * is an object with a scheme and `create(binding)` (keel/plugin's Listener).
   */
  listener?: Listener;
  /**
   * Raw options for the server's constructor (node:http's `createServer`, or the one the
   * listener calls: HTTPS or HTTP/2 options with keel/tls); they win over the limits above.
   */
  server?: ServerOptions | SecureServerOptions;
}

export interface ListeningServer<S extends NetServer = Server> {
  /**
   * The node server: an http.Server, or what the listener built (an https.Server with `https()`,
   * an Http2SecureServer with `http2()`, which serves its HTTP/1.1 clients through node:http).
   */
  readonly server: S;
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, or `https://` with a listener whose scheme is https (IPv6 hosts in brackets). */
  readonly url: string;
  /** Start the graceful shutdown now; resolves when it is done. */
  close(): Promise<void>;
  /** Resolves when the server has shut down. */
  readonly closed: Promise<void>;
}

/** What listening needs of an app (the App class satisfies it; declared here to avoid a cycle). */
export interface Listenable {
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  readonly runtime: AppRuntime;
  runShutdownHooks(): Promise<void>;
  /** Taken as the server's 'upgrade' listener when not null (the app has WebSocket routes and their protocol). */
  readonly upgradeListener: ((req: IncomingMessage, socket: Duplex, head: Buffer) => void) | null;
  /** End stream bodies that asked for it (`endOnDrain`) and close upgraded connections (WebSocket 1001) when the listener stops accepting. */
  closeLongLived(timeoutMs: number): Promise<void>;
}

/**
 * `listen({ tls })` and `listen({ http2 })` left the kernel: refused by name, so a TLS
 * configuration written for them can never come up as cleartext.
 */
function refuseMovedOptions(options: ListenOptions): void {
  const moved = options as { tls?: unknown; http2?: unknown };
  if (moved.http2 !== undefined) {
    throw new TypeError('keel: listen option http2 moved out of the kernel: use listen({ listener: http2({ key, cert }) }) with http2 from "keel/tls"');
  }
  if (moved.tls !== undefined) {
    throw new TypeError('keel: listen option tls moved out of the kernel: use listen({ listener: https({ key, cert }) }) with https from "keel/tls"');
  }
}

/** The listener's server, with what every server gets: the uniform client-error answers and the peer address read at accept. */
async function createServerFor(app: Listenable, listener: Listener, options: ListenOptions, limits: ResolvedServerLimits): Promise<{ server: NetServer; drain: ConnectionDrain }> {
  if (listener === null || typeof listener !== "object" || typeof listener.create !== "function" || (listener.scheme !== "http" && listener.scheme !== "https")) {
    throw new TypeError('keel: listen option listener must be an object with scheme ("http" or "https") and create(binding)');
  }
  const built = await listener.create({
    handler: app.handler,
    logger: app.runtime.logger,
    limits,
    serverOptions: options.server,
    upgradeListener: app.upgradeListener,
  });
  const server = built.server;
  settlePeerAddresses(server, listener.scheme === "https" ? "secureConnection" : "connection");
  installClientErrorHandler(server, app.runtime);
  return { server, drain: built.drain ?? nodeHttpDrain(server) };
}

export async function listenApp(app: Listenable, options: ListenOptions): Promise<ListeningServer> {
  refuseMovedOptions(options);
  const listener = options.listener ?? HTTP_LISTENER;
  const limits = resolveServerLimits(options);
  const timeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT;
  const preStopDelay = options.preStopDelay ?? 0;
  if (!Number.isSafeInteger(preStopDelay) || preStopDelay < 0) {
    throw new RangeError(`keel: listen option preStopDelay must be an integer >= 0, got ${String(preStopDelay)}`);
  }
  const { server, drain: connections } = await createServerFor(app, listener, options, limits);
  app.runtime.limits = limits;
  const logger = app.runtime.logger;
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  const drain = (): Promise<void> => {
    if (closing !== null) return closing;
    app.runtime.draining = true;
    connections.begin();
    closing = new Promise<void>((resolve) => {
      if (preStopDelay === 0) resolve();
      else setTimeout(resolve, preStopDelay);
    }).then(() => new Promise<void>((resolve) => {
      const sweeper = setInterval(() => connections.closeIdle(), 20);
      const deadline = setTimeout(() => {
        server.getConnections((_err, count) => {
          if (count > 0 && LOG_LEVELS.warn >= logger.level) {
            logger.log(LOG_LEVELS.warn, "shutdown deadline reached; cutting off connections", { connections: count, timeout_ms: timeout });
          }
          connections.closeAll();
        });
      }, timeout);
      // Upgraded sockets are the server's connections too: close() waits for them to go away.
      void app.closeLongLived(timeout);
      server.close(() => {
        clearInterval(sweeper);
        clearTimeout(deadline);
        resolve();
      });
      connections.closeIdle();
    })).then(async () => {
      await app.runShutdownHooks();
      resolveClosed();
    });
    return closing;
  };

  return new Promise<ListeningServer>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      const addr = server.address() as AddressInfo;
      const host = addr.address;
      const url = `${listener.scheme}://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
      const signal = options.signal;
      if (signal !== undefined) {
        if (signal.aborted) void drain();
        else signal.addEventListener("abort", () => void drain(), { once: true });
      }
      if (options.shutdown !== undefined) {
        options.shutdown.then(() => void drain(), () => void drain());
      }
      // A listener's server may be another kind (an Http2SecureServer); the type says Server (see ListeningServer).
      resolve({ server: server as Server, host, port: addr.port, url, close: drain, closed });
    });
  });
}
