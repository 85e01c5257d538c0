// The hard deadline of a service's shutdown. SIGTERM starts the drain (listen's graceful
// shutdown: the pre-stop delay, in-flight requests, then the onShutdown hooks); the drain cuts
// connections off at its deadline, but a hook can still wait on something that never answers (a
// collector, a database). When the shutdown has not finished `budgetMs` after the signal (the
// pre-stop delay plus the shutdown timeout), one error line says what was still pending and the
// process exits 1, as the OTel SDK's shutdown timeout and Fastify-style close timeouts give up,
// instead of being SIGKILLed by the orchestrator later with nothing said. Hooks that can give up
// cleanly (the OTLP exporter's shutdown) ask `remainingMs()` how long they may take.
import type { Logger } from "../../index.js";
import { LOG_LEVELS } from "../../plugin.js";

/** The shutdown as `createApp` sees it: when it begins and how much of its budget is left. */
export interface ServiceShutdown {
  /** Aborts on the first SIGTERM/SIGINT. */
  readonly signal: AbortSignal;
  /**
   * How long a shutdown hook may still take, ms, before the process exits anyway (less a moment
   * kept to log and exit); Infinity before the shutdown begins. Give it to anything that can
   * give up cleanly, e.g. `app.onShutdown(() => exporter.shutdown({ timeoutMs: shutdown.remainingMs() }))`.
   */
  remainingMs(): number;
}

export interface ShutdownDeadlineOptions {
  signal: AbortSignal;
  /** From the signal to the forced exit, ms (the pre-stop delay plus the shutdown timeout). */
  budgetMs: number;
  logger: Logger;
  /** Fields of the error line: what is still pending (the drain's phase, connections). */
  pending(): Promise<Record<string, unknown>>;
  /** Default `process.exit`. */
  exit?: (code: number) => void;
}

/** Time kept back from hooks to write the last lines and exit: a quarter of the budget, at most 500 ms. */
const EXIT_RESERVE_MS = 500;

/** How long `pending()` may take before the line is written without it. */
const PENDING_WAIT_MS = 100;

/** Arm the deadline: nothing happens until the signal aborts. */
export function shutdownDeadline(options: ShutdownDeadlineOptions): ServiceShutdown {
  const { signal, budgetMs, logger } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const reserve = Math.min(EXIT_RESERVE_MS, Math.floor(budgetMs / 4));
  let deadline = Infinity;
  const begin = (): void => {
    deadline = Date.now() + budgetMs;
    // Not unref'd: the deadline must come even when what is pending holds nothing open itself.
    setTimeout(() => void expire(), budgetMs);
  };
  const expire = async (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const fields = await Promise.race([
      options.pending().catch(() => ({})),
      new Promise<Record<string, unknown>>((resolve) => (timer = setTimeout(() => resolve({}), PENDING_WAIT_MS))),
    ]);
    clearTimeout(timer);
    if (LOG_LEVELS.error >= logger.level) {
      logger.log(LOG_LEVELS.error, "shutdown deadline passed; exiting", { ...fields, active_resources: activeResources(), exit_code: 1 });
    }
    // The process handlers flush the log synchronously on exit.
    exit(1);
  };
  if (signal.aborted) begin();
  else signal.addEventListener("abort", begin, { once: true });
  return {
    signal,
    remainingMs: () => (deadline === Infinity ? Infinity : Math.max(0, deadline - reserve - Date.now())),
  };
}

/** What keeps the event loop busy, by kind ({ TCPSocketWrap: 2, Timeout: 1 }): a hint at what hangs. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
