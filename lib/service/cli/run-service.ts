// The `main()` of a keel service, in one call: read flags and environment (--help, exit 2 on
// bad values), then either supervise workers (--workers / WORKERS, node:cluster) or serve:
// production() baseline, process handlers, listen, drain on SIGTERM/SIGINT, exit 0; exit 1 when
// the drain and the shutdown hooks have not finished within the shutdown timeout (after the
// pre-stop delay; see shutdown-deadline.ts).
//
//   await runService({ service: "keel-sample", version: "0.1.0", createApp: (config, prod) => {
//     const app = new App({ env: config.env });
//     prod.register(app);
//     return app.routes(...);
//   }});
import cluster from "node:cluster";
import type { Server as NetServer } from "node:net";
import type { App } from "../../index.js";
import { defined, LOG_LEVELS } from "../../plugin.js";
import { createBufferedLogger } from "../observability/json-logger.js";
import { production, type Production, type ProductionOptions } from "../production.js";
import { runClusterPrimary } from "./cluster.js";
import { installProcessHandlers, shutdownSignal } from "./process-handlers.js";
import { shutdownDeadline, type ServiceShutdown } from "./shutdown-deadline.js";
import type { CliSpec } from "./cli-options.js";
import { loadServiceConfig, resolveWorkerCount, type ServiceConfig } from "./service-config.js";
import { describeStartupError } from "./startup-error.js";

export interface RunServiceOptions<S extends CliSpec = {}> {
  service: string;
  version?: string;
  /** Name shown in --help and error messages (default "node dist/server.js"). */
  program?: string;
  /** First sentence of --help (default "A keel service."). */
  description?: string;
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The app's own settings (flag, environment variable, parser, description): parsed and
   * validated with the built-in options (a bad value exits 2), listed in --help, and handed to
   * `createApp` as `config.settings`.
   */
  settings?: S;
  /**
   * Environment variables the service reads itself, without a flag (name -> help text), e.g.
   * keel/otel's OTEL_ENV_VARIABLES: listed in --help so it names every variable the service reads.
   */
  environment?: Readonly<Record<string, string>>;
  /**
   * Subcommands run instead of the server when they are the first argument
   * (`node dist/server.js audit verify ./audit`): each gets the remaining arguments and
   * returns the exit code. Listed in --help.
   */
  commands?: Readonly<Record<string, ServiceCommand>>;
  /** More production() options (checks, probe paths, span sinks...). */
  production?: Omit<ProductionOptions, "service" | "version" | "level">;
  /**
   * Build the app. `prod` is configured from the flags; register it first (`prod.register(app)`)
   * so its layer is the outermost. If you don't, runService registers it after your layers.
   * `shutdown` says how much of the shutdown budget a hook has left (`shutdown.remainingMs()`).
   */
  createApp(config: ServiceConfig<S>, prod: Production, shutdown: ServiceShutdown): App | Promise<App>;
}

/** A subcommand of a service's executable. */
export interface ServiceCommand {
  /** One line for --help, e.g. "verify <dir>: check the audit log's hash chain". */
  readonly summary: string;
  run(argv: readonly string[], io: { stdout(text: string): void; stderr(text: string): void }): number | Promise<number>;
}

/** The forced exit never comes sooner than this after the pre-stop delay, ms (see serve()). */
const MIN_FORCED_EXIT_MS = 1000;

/** The most the drain keeps back from in-flight requests for the shutdown hooks, ms. */
const HOOKS_RESERVE_MAX_MS = 1000;

/**
 * How long in-flight requests get after the pre-stop delay before they are cut off, ms: the
 * shutdown timeout less a reserve for the shutdown hooks (a quarter of it, at most 1 s).
 * Requests and hooks share the one budget; cutting requests off at its very end left the hooks
 * no time, and the forced exit came in the same instant as the cut: exit 1 and an unflushed log
 * for a shutdown that would have ended cleanly a moment later.
 */
function requestDrainMs(shutdownTimeoutMs: number): number {
  return shutdownTimeoutMs - Math.min(HOOKS_RESERVE_MAX_MS, Math.floor(shutdownTimeoutMs / 4));
}

const PROCESS_IO = { stdout: (t: string) => void process.stdout.write(t), stderr: (t: string) => void process.stderr.write(t) };

/**
 * Runs until shutdown, then exits the process: 0 after a clean drain; 2 on a configuration
 * problem (bad flags or variables, a port in use, a missing secret: one plain line on stderr
 * says what to change); 1 when the service fails otherwise (one JSON line at level 60 first),
 * or when the shutdown has not finished within the pre-stop delay plus the shutdown timeout
 * after SIGTERM/SIGINT (one line at level 50 says what was pending). In-flight requests get the
 * shutdown timeout less a reserve for the shutdown hooks (a quarter of it, at most 1 s); those
 * still running then are cut off, and the shutdown still ends with exit 0 when the hooks finish.
 *
 * @example
 * await runService({ service: "billing", version: "1.4.2", createApp: (config, prod) => {
 *   const app = new App({ env: config.env });
 *   prod.register(app);
 *   return app.routes(route.get("/hello", [], () => "hi"));
 * }});
 *
 * @see docs/features/service.md
 */
export async function runService<S extends CliSpec = {}>(options: RunServiceOptions<S>): Promise<void> {
  try {
    await serve(options);
  } catch (err) {
    const e = err instanceof Error ? { type: err.name, message: err.message, stack: err.stack } : { message: String(err) };
    process.stdout.write(JSON.stringify({ level: LOG_LEVELS.fatal, time: Date.now(), pid: process.pid, service: options.service, msg: "fatal", err: e }) + "\n");
    process.stderr.write(`${programName(options)}: failed: ${e.message}\n`);
    process.exit(1);
  }
}

/** The description for --help, with the subcommands appended. */
function commandsHelp(description: string | undefined, commands: Readonly<Record<string, ServiceCommand>> | undefined): string | undefined {
  if (commands === undefined || Object.keys(commands).length === 0) return description;
  const lines = Object.entries(commands).map(([name, c]) => `  ${name} ${c.summary}`);
  return `${description ?? "A keel service."}\n\nCommands (instead of serving):\n${lines.join("\n")}\n`;
}

function programName(options: { program?: string }): string {
  return (options.program ?? "node dist/server.js").split(" ").pop()!;
}

async function serve<S extends CliSpec>(options: RunServiceOptions<S>): Promise<void> {
  const program = options.program ?? "node dist/server.js";
  const argv = options.argv ?? process.argv.slice(2);
  const command = argv[0] !== undefined && options.commands !== undefined && Object.hasOwn(options.commands, argv[0]) ? options.commands[argv[0]]! : undefined;
  if (command !== undefined) process.exit(await command.run(argv.slice(1), PROCESS_IO));
  const version = options.version === undefined ? options.service : `${options.service} ${options.version}`;
  const config = loadServiceConfig(argv, options.env ?? process.env, program, {}, commandsHelp(options.description, options.commands), options.settings ?? ({} as S), version, options.environment);
  const base = options.version === undefined ? { service: options.service } : { service: options.service, version: options.version };

  if (config.workers !== null && cluster.isPrimary) {
    const logger = createBufferedLogger({ level: config.logLevel, base: { ...base, role: "primary" } });
    installProcessHandlers(logger);
    const code = await runClusterPrimary({
      workers: resolveWorkerCount(config.workers),
      logger,
      // Workers give up at their own deadline (pre-stop delay + shutdown timeout); SIGKILL is the backstop.
      killTimeoutMs: config.preStopDelayMs + config.shutdownTimeoutMs + 5000,
    });
    logger.log(LOG_LEVELS.info, "stopped", { exit_code: code });
    await logger.flush();
    process.exit(code);
  }

  const prod = production({
    ...options.production,
    service: options.service,
    ...defined({ version: options.version }),
    level: config.logLevel,
    requestId: options.production?.requestId === false ? false : { ...(typeof options.production?.requestId === "object" ? options.production.requestId : {}), trustIncoming: config.trustRequestId },
  });
  const logger = prod.logger;
  installProcessHandlers(logger);
  const signal = shutdownSignal(logger);
  let server: Awaited<ReturnType<App["listen"]>> | undefined;
  /** Set once the listener has closed and the last connection is gone: the hooks run. */
  let drained = false;
  const shutdown = shutdownDeadline({
    signal,
    // A timeout under a second (0: cut requests off at once) still cuts requests off then, but the
    // process is not forced out before a second has passed: the hooks get that long to flush the log.
    budgetMs: config.preStopDelayMs + Math.max(config.shutdownTimeoutMs, MIN_FORCED_EXIT_MS),
    logger,
    pending: () => pendingShutdown(server?.server, drained, config.shutdownTimeoutMs),
  });
  try {
    const app = await options.createApp(config, prod, shutdown);
    if (!prod.isRegistered(app)) prod.register(app);
    server = await app.listen({
      host: config.host,
      port: config.port,
      signal,
      // Requests are cut off early enough to leave the hooks their reserve (requestDrainMs).
      shutdownTimeout: requestDrainMs(config.shutdownTimeoutMs),
      preStopDelay: config.preStopDelayMs,
      ...config.limits,
    });
    server.server.once("close", () => (drained = true));
  } catch (err) {
    // A port in use, a missing secret, a route conflict...: the JSON line for log shippers, one
    // plain line with the fix for the person at the terminal; exit 2 when the configuration is
    // what has to change.
    const failure = describeStartupError(err, config);
    logger.log(LOG_LEVELS.fatal, "failed to start", { err: err instanceof Error ? { type: err.name, message: err.message, stack: err.stack, code: (err as NodeJS.ErrnoException).code } : String(err), exit_code: failure.exitCode });
    await prod.flush();
    process.stderr.write(`${programName(options)}: ${failure.line}\n`);
    process.exit(failure.exitCode);
  }
  logger.log(LOG_LEVELS.info, "listening", { url: server.url, env: config.env });
  await server.closed;
  logger.log(LOG_LEVELS.info, "stopped");
  await prod.flush();
  process.exit(0);
}

/** What the shutdown still waits for, for the line written when its deadline passes. */
function pendingShutdown(server: NetServer | undefined, drained: boolean, timeoutMs: number): Promise<Record<string, unknown>> {
  if (server === undefined) return Promise.resolve({ timeout_ms: timeoutMs, pending: "startup" });
  if (drained) return Promise.resolve({ timeout_ms: timeoutMs, pending: "shutdown hooks" });
  return new Promise((resolve) =>
    server.getConnections((err, count) => resolve({ timeout_ms: timeoutMs, pending: "connections", ...(err ? {} : { connections: count }) })),
  );
}
