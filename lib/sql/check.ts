// A readiness check for any SqlDatabase, for keel/service's probes:
// `prod.check("db", databaseCheck(db, { timeoutMs: 1000 }))`. It resolves when `db.ping` does
// and rejects otherwise, and never waits past `timeoutMs` or the probe's own abort signal even if
// the driver's ping does (a half-open socket): a hung check would hang /ready.
import type { SqlDatabase } from "./database.js";

export interface DatabaseCheckOptions {
  /** How long the ping may take, ms (default 1000); past it the check fails. */
  readonly timeoutMs?: number;
}

export const DEFAULT_DATABASE_CHECK_TIMEOUT_MS = 1000;

/** A health check (keel/service's HealthCheck shape) that pings `db`. */
export function databaseCheck(db: Pick<SqlDatabase, "ping">, options: DatabaseCheckOptions = {}): (signal?: AbortSignal) => Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_CHECK_TIMEOUT_MS;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new RangeError("databaseCheck: timeoutMs must be a positive number");
  return (signal) =>
    new Promise<void>((resolve, reject) => {
      const onAbort = (): void => finish(signal!.reason instanceof Error ? signal!.reason : new Error("database check aborted"));
      const timer = setTimeout(() => finish(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
      function finish(err: Error | null): void {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (err === null) resolve();
        else reject(err);
      }
      if (signal?.aborted === true) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      let ping: Promise<void>;
      try {
        ping = db.ping(timeoutMs);
      } catch (err) {
        return finish(err instanceof Error ? err : new Error(String(err)));
      }
      ping.then(
        () => finish(null),
        (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
      );
    });
}
