// Recording from a request: the fields every event takes from the request (actor, request id,
// client address, route pattern, method) are filled in here, so handlers only say what happened.
// Nothing is taken from headers or bodies: the actor comes from the principal an auth layer set
// (lib/shared/principal.ts), the route is the pattern (no query string, no parameter values).
import { ApiError, type Context } from "../index.js";
import { getAuthPrincipal } from "../shared/principal.js";
import type { AuditLog } from "./audit-log.js";
import type { AuditActor, AuditEvent, AuditOutcome, AuditRecord } from "./record.js";

/** The `ctx.state` key where the `audit()` plugin keeps its binding. */
export const AUDIT_STATE_KEY = "keel.audit";
/** `ctx.locals` key set once a handler recorded an event for the request. */
export const AUDIT_RECORDED_KEY = "keel.audit.recorded";

/** What the plugin stores for handlers: the log and how to find a request's client address. */
export interface AuditBinding {
  readonly log: AuditLog;
  readonly clientAddress: (ctx: Context) => string;
}

/** What a handler says; the request supplies the rest. */
export interface AuditRequestEvent {
  readonly action: string;
  readonly outcome: AuditOutcome;
  readonly target?: string | null;
  readonly metadata?: Readonly<Record<string, unknown>> | null;
  /** Overrides the actor taken from the request's principal. */
  readonly actor?: AuditActor | null;
}

/** The caller as the auth layer established it, or null (anonymous, or no auth layer ran). */
export function requestActor(ctx: Context): AuditActor | null {
  const principal = getAuthPrincipal(ctx);
  if (principal === undefined) return null;
  const sub = principal.claims.sub;
  return { scheme: principal.scheme, id: typeof sub === "string" ? sub : null };
}

export function auditBinding(ctx: Context): AuditBinding {
  const binding = ctx.state[AUDIT_STATE_KEY] as AuditBinding | undefined;
  if (binding === undefined) {
    throw ApiError.internal("Internal server error", { detail: `audit(ctx, ...) called on ${ctx.route?.pattern ?? ctx.path} but the audit() plugin is not registered` });
  }
  return binding;
}

/** The full event for `partial`, with the request's fields. */
export function requestEvent(ctx: Context, binding: AuditBinding, partial: AuditRequestEvent): AuditEvent {
  return {
    action: partial.action,
    outcome: partial.outcome,
    actor: partial.actor !== undefined ? partial.actor : requestActor(ctx),
    target: partial.target ?? null,
    requestId: ctx.requestId || null,
    route: ctx.route?.pattern ?? null,
    method: ctx.method,
    clientAddress: binding.clientAddress(ctx) || null,
    metadata: partial.metadata ?? null,
  };
}

/** Record an event for this request (what `audit(ctx, event)` does). */
export function recordRequestEvent(ctx: Context, partial: AuditRequestEvent): Promise<AuditRecord> {
  let binding: AuditBinding;
  try {
    binding = auditBinding(ctx);
  } catch (err) {
    return Promise.reject(err);
  }
  ctx.locals[AUDIT_RECORDED_KEY] = true;
  return binding.log.record(requestEvent(ctx, binding, partial));
}
