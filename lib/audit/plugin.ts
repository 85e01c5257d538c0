// `audit(...)`: the one name applications use.
// - `app.register(audit({ log, auto: true }))` keeps the log in the app's state, where
//   `audit(ctx, ...)` finds it, and (with `auto`, the default) adds the global layer of
//   automatic-events.ts. Register it after the request-id layer or production(), so records
//   carry the request id (any order works: the id is read after the inner chain ran).
// - `await audit(ctx, { action, target, outcome, metadata })` in a handler records one event with
//   the request's actor, request id, client address, route and method. Awaiting it means the
//   record is written (and synced, under fsync "always") before the handler answers.
import { type App, Context } from "../index.js";
import { LOG_LEVELS } from "../plugin.js";
import { clientAddressResolver, type TrustProxyOptions } from "../middleware/client-ip/index.js";
import type { AuditLog } from "./audit-log.js";
import { automaticAuditLayer } from "./automatic-events.js";
import type { AuditRecord } from "./record.js";
import { AUDIT_STATE_KEY, type AuditBinding, type AuditRequestEvent, recordRequestEvent } from "./request-event.js";
import { DEFAULT_SUMMARY_MS, SuppressedRefusals } from "./suppressed-refusals.js";

export interface AuditPluginOptions {
  log: AuditLog;
  /** Record 401s, 403s and admin-route requests automatically (default true). */
  auto?: boolean;
  /** Proxies in front of the app, for the client address (default: the socket peer only). */
  trustProxy?: TrustProxyOptions;
  /**
   * Admin refusals answered 429 by the refusal limit are counted, not recorded; a summary record
   * per client is written this long after the first one counted, and on shutdown (default 60 s).
   */
  suppressedSummaryMs?: number;
}

/**
 * `app.register(audit({ log }))` records 401s, 403s and admin-route requests; `await audit(ctx,
 * { action, target, outcome, metadata })` in a handler records one event with the request's actor.
 *
 * @example
 * app.register(audit({ log: auditLog({ sink: fileAuditSink({ dir: "./audit" }) }) }));
 * route.post("/orders/{id}/refund", [context()], async (ctx: Context) => {
 *   await audit(ctx, { action: "order.refund", target: `order:${ctx.params["id"]}`, outcome: "success" });
 *   return { refunded: true };
 * });
 * @see docs/features/audit.md
 */
export function audit(options: AuditPluginOptions): (app: App) => void;
export function audit(ctx: Context, event: AuditRequestEvent): Promise<AuditRecord>;
export function audit(first: AuditPluginOptions | Context, event?: AuditRequestEvent): ((app: App) => void) | Promise<AuditRecord> {
  if (first instanceof Context) {
    if (event === undefined) return Promise.reject(new TypeError("audit(ctx, event): the event is missing"));
    return recordRequestEvent(first, event);
  }
  const options = first;
  if (options === null || typeof options !== "object" || typeof options.log?.record !== "function") throw new TypeError("audit({ log }): log must be an AuditLog (auditLog({ sink }))");
  const binding: AuditBinding = { log: options.log, clientAddress: clientAddressResolver(options.trustProxy) };
  const summaryMs = options.suppressedSummaryMs ?? DEFAULT_SUMMARY_MS;
  if (!Number.isSafeInteger(summaryMs) || summaryMs < 1) throw new TypeError("audit({ suppressedSummaryMs }): must be a positive integer of milliseconds");
  return (app) => {
    const suppressed = new SuppressedRefusals((event) => {
      binding.log.record(event).catch((err: unknown) => {
        const logger = app.runtime.logger;
        if (LOG_LEVELS.error >= logger.level) logger.log(LOG_LEVELS.error, "audit record failed", { action: event.action, message: err instanceof Error ? err.message : String(err) });
      });
    }, summaryMs);
    app.setState(AUDIT_STATE_KEY, binding);
    if (options.auto !== false) app.layer(automaticAuditLayer(binding, suppressed));
    // Before the app's own hooks that close the log (registered after this plugin).
    app.onShutdown(() => suppressed.flush());
  };
}
