// Listening and graceful shutdown. When the signal aborts (or the shutdown promise settles):
// readiness flips to draining; for the pre-stop delay the server keeps accepting and answering
// (every HTTP/1 response carries `connection: close` and every HTTP/2 session gets a GOAWAY, so
// clients retire their connections and a load balancer sees /ready answer 503); then the listener
// stops accepting, idle connections close, in-flight requests finish, and after the deadline
// whatever is left is cut off and counted. Then the shutdown hooks run and `closed` resolves. The
// connection limits (server-limits.ts) and the uniform answers to parser errors (client-error.ts)
// are set here. With `tls` the server is node:https; with `tls` and `http2` it is HTTP/2 with
// HTTP/1.1 fallback (http2-server.ts). Cleartext HTTP/2 (h2c) is not offered.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { SecureServerOptions } from "node:http2";
import type { AddressInfo, Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";
import type { AppRuntime } from "../core/runtime.js";
import { LOG_LEVELS } from "../util/logger.js";
import { installClientErrorHandler } from "./client-error.js";
import { settlePeerAddresses } from "./peer-address.js";
import { createHttp2Listener, type ConnectionDrain } from "./http2-server.js";
import { applyServerLimits, resolveServerLimits, serverConstructionOptions, type ResolvedServerLimits, type ServerLimits } from "./server-limits.js";
import { resolveTlsOptions, type TlsOptions } from "./tls-options.js";

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
   * Serve HTTPS: the key and certificate (PEM), and optionally a CA, passphrase, protocol floor,
   * ciphers... (a subset of node:tls options). The URL becomes `https://`.
   */
  tls?: TlsOptions;
  /**
   * With `tls`: serve HTTP/2 (ALPN "h2") and HTTP/1.1 on the same port, for clients that only
   * speak that. Requires `tls`: cleartext HTTP/2 (h2c) is not supported.
   */
  http2?: boolean;
  /**
   * Raw options for node:http `createServer` (node:https with `tls`, `http2.createSecureServer`
   * with `http2`); they win over the limits above.
   */
  server?: ServerOptions | SecureServerOptions;
}

export interface ListeningServer<S extends NetServer = Server> {
  /**
   * The node server: an http.Server, an https.Server with `tls`, or an Http2SecureServer with
   * `http2` (which serves its HTTP/1.1 clients through node:http, with the same limit properties).
   */
  readonly server: S;
  readonly host: string;
  readonly port: number;
  /** `http://host:port`, or `https://` with `tls` (IPv6 hosts in brackets). */
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
 * The node server for the options, with its limits and the uniform client-error answers.
 * node:https and node:http2 are loaded only when asked for (about 2 and 4 ms of startup).
 */
async function createListener(app: Listenable, options: ListenOptions, limits: ResolvedServerLimits): Promise<{ server: NetServer; drain: ConnectionDrain }> {
  if (options.http2 === true && options.tls === undefined) {
    throw new TypeError("keel: listen option http2 requires tls (cleartext HTTP/2, h2c, is not supported)");
  }
  if (options.tls === undefined) {
    const server = createServer({ ...serverConstructionOptions(limits), ...(options.server as ServerOptions) }, app.handler);
    applyServerLimits(server, limits);
    settlePeerAddresses(server, "connection");
    installClientErrorHandler(server, app.runtime);
    takeUpgrades(app, server);
    return { server, drain: http1Drain(server) };
  }
  const tls = resolveTlsOptions(options.tls);
  if (options.http2 === true) {
    const { createSecureServer } = await import("node:http2");
    const { server, drain } = createHttp2Listener(createSecureServer, app.handler, limits, tls, options.server as SecureServerOptions | undefined, app.runtime.logger);
    settlePeerAddresses(server, "secureConnection");
    installClientErrorHandler(server, app.runtime);
    return { server, drain };
  }
  const { createServer: createHttpsServer } = await import("node:https");
  const server = createHttpsServer({ ...tls, ...serverConstructionOptions(limits), ...(options.server as ServerOptions) }, app.handler);
  applyServerLimits(server, limits);
  settlePeerAddresses(server, "secureConnection");
  installClientErrorHandler(server, app.runtime);
  takeUpgrades(app, server);
  return { server, drain: http1Drain(server) };
}

/**
 * Only an app with WebSocket routes listens for 'upgrade': without a listener node:http serves
 * an Upgrade request as an ordinary one. (WebSocket over HTTP/2, RFC 8441, is not offered: the
 * HTTP/2 listener's HTTP/1.1 clients are served without upgrades.)
 */
function takeUpgrades(app: Listenable, server: Server): void {
  const listener = app.upgradeListener;
  if (listener !== null) server.on("upgrade", listener);
}

/** node:http (and node:https) track their own connections: idle ones close, the rest finish. */
function http1Drain(server: Server): ConnectionDrain {
  return {
    begin() {},
    closeIdle: () => server.closeIdleConnections(),
    closeAll: () => server.closeAllConnections(),
  };
}

export async function listenApp(app: Listenable, options: ListenOptions): Promise<ListeningServer> {
  const limits = resolveServerLimits(options);
  const timeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT;
  const preStopDelay = options.preStopDelay ?? 0;
  if (!Number.isSafeInteger(preStopDelay) || preStopDelay < 0) {
    throw new RangeError(`keel: listen option preStopDelay must be an integer >= 0, got ${String(preStopDelay)}`);
  }
  const { server, drain: connections } = await createListener(app, options, limits);
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
      const scheme = options.tls === undefined ? "http" : "https";
      const url = `${scheme}://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
      const signal = options.signal;
      if (signal !== undefined) {
        if (signal.aborted) void drain();
        else signal.addEventListener("abort", () => void drain(), { once: true });
      }
      if (options.shutdown !== undefined) {
        options.shutdown.then(() => void drain(), () => void drain());
      }
      // With http2 the server is an Http2SecureServer; the type says Server (see ListeningServer).
      resolve({ server: server as Server, host, port: addr.port, url, close: drain, closed });
    });
  });
}
