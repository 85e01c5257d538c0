// Who may call the admin endpoints of the observability features (traffic insight, replay):
// nobody unless the app says so. Either an admin token (compared in constant time, sent as
// `Authorization: Bearer <token>`) or the app's own layers (an auth layer plus a guard). With
// neither, the feature registers no admin route at all: there is nothing to find or to guess.
// Admin routes are never listed in the public OpenAPI document.
import { ApiError, type Context, type Layer, type Next, type Reply } from "../index.js";
import { timingSafeEqualString } from "./timing.js";

export interface AdminAccessOptions {
  /** A shared secret (at least 16 characters) the caller sends as `Authorization: Bearer <token>`. */
  adminToken?: string;
  /** Or: layers that authenticate and authorize the caller (e.g. jwt + requireRole("admin")). */
  adminLayers?: readonly Layer[];
}

const MIN_TOKEN_LENGTH = 16;

/**
 * The layers that guard admin routes, or null when admin access is not configured (the caller
 * then registers no admin route). A token shorter than 16 characters is a TypeError.
 */
export function adminAccessLayers(options: AdminAccessOptions, feature: string): readonly Layer[] | null {
  const layers: Layer[] = [];
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
  return layers.length === 0 ? null : layers;
}
