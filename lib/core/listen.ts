// Listening and graceful shutdown. When the signal aborts (or the shutdown promise settles):
// readiness flips to draining; for the pre-stop delay the server keeps accepting and answering
// (every response carries `connection: close`, so clients retire their sockets and a load
// balancer sees /ready answer 503); then the listener stops accepting, idle keep-alive sockets
// close, in-flight requests finish, and after the deadline whatever is left is cut off and
// counted. Then the shutdown hooks run and `closed` resolves. The connection limits
// (server-limits.ts) and the uniform answers to parser errors (client-error.ts) are set here.
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AppRuntime } from "./runtime.js";
import { LOG_LEVELS } from "../util/logger.js";
import { installClientErrorHandler } from "./client-error.js";
import { applyServerLimits, resolveServerLimits, serverConstructionOptions, type ServerLimits } from "./server-limits.js";

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
  /** Raw options for node:http createServer; they win over the limits above. */
  server?: ServerOptions;
}

export interface ListeningServer {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `http://host:port` (IPv6 hosts in brackets). */
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
}

export function listenApp(app: Listenable, options: ListenOptions): Promise<ListeningServer> {
  let limits;
  try {
    limits = resolveServerLimits(options);
  } catch (err) {
    return Promise.reject(err);
  }
  app.runtime.limits = limits;
  const server = createServer({ ...serverConstructionOptions(limits), ...options.server }, app.handler);
  applyServerLimits(server, limits);
  installClientErrorHandler(server, app.runtime);
  const timeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT;
  const preStopDelay = options.preStopDelay ?? 0;
  if (!Number.isSafeInteger(preStopDelay) || preStopDelay < 0) {
    return Promise.reject(new RangeError(`keel: listen option preStopDelay must be an integer >= 0, got ${String(preStopDelay)}`));
  }
  const logger = app.runtime.logger;
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  const drain = (): Promise<void> => {
    if (closing !== null) return closing;
    app.runtime.draining = true;
    closing = new Promise<void>((resolve) => {
      if (preStopDelay === 0) resolve();
      else setTimeout(resolve, preStopDelay);
    }).then(() => new Promise<void>((resolve) => {
      const sweeper = setInterval(() => server.closeIdleConnections(), 20);
      const deadline = setTimeout(() => {
        server.getConnections((_err, count) => {
          if (count > 0 && LOG_LEVELS.warn >= logger.level) {
            logger.log(LOG_LEVELS.warn, "shutdown deadline reached; cutting off connections", { connections: count, timeout_ms: timeout });
          }
          server.closeAllConnections();
        });
      }, timeout);
      server.close(() => {
        clearInterval(sweeper);
        clearTimeout(deadline);
        resolve();
      });
      server.closeIdleConnections();
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
      const url = `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`;
      const signal = options.signal;
      if (signal !== undefined) {
        if (signal.aborted) void drain();
        else signal.addEventListener("abort", () => void drain(), { once: true });
      }
      if (options.shutdown !== undefined) {
        options.shutdown.then(() => void drain(), () => void drain());
      }
      resolve({ server, host, port: addr.port, url, close: drain, closed });
    });
  });
}
