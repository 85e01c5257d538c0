// Process-level behaviour of a service:
// - an unhandled promise rejection (a promise a handler forgot to await) is logged as an error
//   line and the process carries on serving;
// - an uncaught exception leaves the process in an unknown state: it is logged as one JSON
//   line at level fatal (60), the log is flushed synchronously, and the process exits 1 (a
//   supervisor, the cluster primary or the orchestrator restarts it);
// - on exit, whatever is still buffered in the log is flushed.
// Errors thrown by handlers never get here: the request pipeline turns them into error replies.
import type { Logger } from "../../index.js";
import { LOG_LEVELS } from "../../plugin.js";
import { isJsonLogger } from "../observability/json-logger.js";

export interface ProcessHandlerOptions {
  /** Called after a fatal error was logged (default `process.exit(1)`). */
  exit?: (code: number) => void;
  /** Exit on uncaught exceptions (default true; false only logs them). */
  exitOnUncaughtException?: boolean;
}

function errorFields(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { err: { type: err.name, message: err.message, stack: err.stack } };
  return { err: { type: typeof err, message: String(err) } };
}

/** Install the handlers; returns a function that removes them. */
export function installProcessHandlers(logger: Logger, options: ProcessHandlerOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const exitOnUncaught = options.exitOnUncaughtException ?? true;
  const flushSync = (): void => {
    if (isJsonLogger(logger)) logger.flushSync();
  };

  const onRejection = (reason: unknown): void => {
    if (LOG_LEVELS.error >= logger.level) logger.log(LOG_LEVELS.error, "unhandled promise rejection", errorFields(reason));
  };
  const onException = (err: unknown, origin: string): void => {
    logger.log(LOG_LEVELS.fatal, exitOnUncaught ? "uncaught exception; exiting" : "uncaught exception", { ...errorFields(err), origin });
    flushSync();
    if (exitOnUncaught) exit(1);
  };
  const onExit = (): void => flushSync();

  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  process.on("exit", onExit);
  return () => {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
    process.off("exit", onExit);
  };
}

/**
 * An AbortSignal that aborts on the first SIGTERM or SIGINT (logged). Later signals are logged
 * and ignored: the drain has its own deadline, and under a cluster primary a worker can get
 * both the terminal's SIGINT and the primary's SIGTERM.
 */
export function shutdownSignal(logger: Logger, signals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): AbortSignal {
  const controller = new AbortController();
  const on = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      if (LOG_LEVELS.debug >= logger.level) logger.log(LOG_LEVELS.debug, "already shutting down", { signal: sig });
      return;
    }
    if (LOG_LEVELS.info >= logger.level) logger.log(LOG_LEVELS.info, "shutting down", { signal: sig });
    controller.abort();
  };
  for (const s of signals) process.on(s, on);
  return controller.signal;
}
