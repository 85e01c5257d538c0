// Who may call the admin endpoints of the observability features (traffic insight, replay):
// nobody unless the app says so. Either an admin token (compared in constant time, sent as
// `Authorization: Bearer <token>`) or the app's own layers (an auth layer plus a guard). With
// neither, the feature registers no admin route at all: there is nothing to find or to guess.
// Admin routes are never listed in the public OpenAPI document.
// Refusals (401/403 from the token check, the app's layers or the handler) are limited per client
// (refusal-limiter.ts): past the limit the client gets the uniform 429 with Retry-After instead,
// and `ctx.locals[ADMIN_REFUSAL_SUPPRESSED_KEY]` tells the audit log not to record each one.
import { ApiError, type Context, type Layer, type Next, type Reply } from "../index.js";
import { RefusalLimiter, type RefusalLimitOptions } from "./refusal-limiter.js";
import { timingSafeEqualString } from "./timing.js";

/** `ctx.locals` key set on a refusal answered 429 by the limit (the audit log counts, not records, those). */
export const ADMIN_REFUSAL_SUPPRESSED_KEY = "keel.admin.refusalSuppressed";

export interface AdminRefusalLimit extends RefusalLimitOptions {
  /** The client a refusal is counted for (default: the socket peer's address). Behind a proxy, the address it forwarded. */
  clientKey?: (ctx: Context) => string;
}

export interface AdminAccessOptions {
  /** A shared secret (at least 16 characters) the caller sends as `Authorization: Bearer <token>`. */
  adminToken?: string;
  /** Or: layers that authenticate and authorize the caller (e.g. jwt + requireRole("admin")). */
  adminLayers?: readonly Layer[];
  /**
   * Refusals one client may earn before 429 (default: a burst of 20, then 10 a minute, 10,000
   * clients tracked); false: no limit. Valid credentials are never limited.
   */
  refusalLimit?: AdminRefusalLimit | false;
}

const MIN_TOKEN_LENGTH = 16;

/**
 * The layers that guard admin routes, or null when admin access is not configured (the caller
 * then registers no admin route). A token shorter than 16 characters is a TypeError.
 */
export function adminAccessLayers(options: AdminAccessOptions, feature: string): readonly Layer[] | null {
  const layers: Layer[] = [];
  const limit = options.refusalLimit ?? {};
  const limiter = limit === false ? null : new RefusalLimiter(limit);
  const clientKey = limit === false ? null : (limit.clientKey ?? ((ctx: Context) => ctx.remoteAddress));
  const token = options.adminToken;
  if (token !== undefined) {
    if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH) {
      throw new TypeError(`${feature}: adminToken must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
    }
    const expected = `Bearer ${token}`;
    layers.push(function adminTokenLayer(ctx: Context, next: Next): Promise<Reply> {
      const sent = ctx.header("authorization");
      if (sent === undefined || !timingSafeEqualString(sent, expected)) {
        return Promise.reject(ApiError.unauthorized("Admin token required", { headers: { "www-authenticate": 'Bearer realm="admin"' } }));
      }
      return next(ctx);
    });
  }
  if (options.adminLayers !== undefined) layers.push(...options.adminLayers);
  if (layers.length === 0) return null;
  if (limiter === null || clientKey === null) return layers;
  // The limit wraps the token check too, so it sees every refusal, whoever made it.
  const first = layers[0]!;
  /** The 429 for a refusal past the client's limit, or null when it is answered as it is. */
  const overLimit = (ctx: Context, status: number): ApiError | null => {
    if (status !== 401 && status !== 403) return null;
    const wait = limiter.take(clientKey(ctx));
    if (wait === 0) return null;
    ctx.locals[ADMIN_REFUSAL_SUPPRESSED_KEY] = true;
    return ApiError.tooManyRequests(`Too many refused admin requests: try again in ${wait} second${wait === 1 ? "" : "s"}`, { headers: { "retry-after": String(wait) } });
  };
  layers[0] = function adminRefusalLimit(ctx: Context, next: Next): Promise<Reply> {
    return first(ctx, next).then(
      (reply) => {
        const limited = overLimit(ctx, reply.status);
        if (limited !== null) throw limited;
        return reply;
      },
      (err: unknown) => {
        throw (err instanceof ApiError ? overLimit(ctx, err.status) : null) ?? err;
      },
    );
  };
  return layers;
}
