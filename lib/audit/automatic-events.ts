// The events recorded without a handler asking, by one global layer after the inner chain has
// produced the reply (so the status is known; the write is queued, the reply is not delayed):
// - 401: "auth.failed", outcome "failure" (the request's credentials were missing or refused);
// - 403: "access.denied", outcome "denied" (actor: the principal, when one was established);
// - an admin route, whatever the status: "admin.request", outcome "success" below 400, else
//   "failure". A route is an admin route when its `config` has `{ audit: "admin" }` or it is
//   tagged "admin" (`tag: "admin"` or "admin" in `tags`); `config: { audit: false }` takes a
//   tagged route out again. When the handler recorded an event of its own with `audit(ctx, ...)`,
//   that specific event stands for the request and no "admin.request" is added.
// 401 and 403 are recorded on every routed request, admin or not; unrouted ones (404, 405) are not.
// A refusal the admin refusal limit answered 429 (lib/shared/admin-access.ts) is not recorded: it
// is counted, and one "admin.refusals_suppressed" record per client says how many (see
// suppressed-refusals.ts).
// Metadata carries the status only: never headers (Authorization, cookies) or bodies.
import type { Context, Layer, Next, Reply } from "../index.js";
import { LOG_LEVELS } from "../plugin.js";
import type { AuditOutcome } from "./record.js";
import { AUDIT_RECORDED_KEY, type AuditBinding, requestEvent } from "./request-event.js";
import { ADMIN_REFUSAL_SUPPRESSED_KEY } from "../shared/admin-access.js";
import type { SuppressedRefusals } from "./suppressed-refusals.js";

/** True when the route is an admin route by the rule above. */
export function isAdminRoute(ctx: Context): boolean {
  const route = ctx.route;
  if (route === null) return false;
  const mark = route.meta.config?.["audit"];
  if (mark === "admin") return true;
  if (mark === false) return false;
  // MatchedRoute shows the fields layers usually read; the registered route also has its tags.
  const meta = route.meta as { tag?: unknown; tags?: unknown };
  return meta.tag === "admin" || (Array.isArray(meta.tags) && meta.tags.includes("admin"));
}

function automaticEvent(ctx: Context, status: number): { action: string; outcome: AuditOutcome } | null {
  if (ctx.route === null) return null;
  if (status === 401) return { action: "auth.failed", outcome: "failure" };
  if (status === 403) return { action: "access.denied", outcome: "denied" };
  if (isAdminRoute(ctx) && ctx.locals[AUDIT_RECORDED_KEY] !== true) return { action: "admin.request", outcome: status < 400 ? "success" : "failure" };
  return null;
}

export function automaticAuditLayer(binding: AuditBinding, suppressed: SuppressedRefusals): Layer {
  return async function auditLayer(ctx: Context, next: Next): Promise<Reply> {
    const reply = await next(ctx);
    if (reply.status === 429 && ctx.locals[ADMIN_REFUSAL_SUPPRESSED_KEY] === true) {
      suppressed.count(binding.clientAddress(ctx), ctx.route?.pattern ?? null);
      return reply;
    }
    const event = automaticEvent(ctx, reply.status);
    if (event !== null) {
      const full = requestEvent(ctx, binding, { ...event, target: ctx.path, metadata: { status: reply.status } });
      binding.log.record(full).catch((err: unknown) => {
        const logger = ctx.runtime.logger;
        if (LOG_LEVELS.error >= logger.level) {
          logger.log(LOG_LEVELS.error, "audit record failed", { action: event.action, request_id: ctx.requestId, message: err instanceof Error ? err.message : String(err) });
        }
      });
    }
    return reply;
  };
}
