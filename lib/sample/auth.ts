// Authentication and browser security: `GET /api/v1/me` (any valid JWT), `DELETE
// /api/v1/admin/cache` (role admin), and a CSRF-protected form (`GET`/`POST /api/v1/form`).
import { createHmac } from "node:crypto";
import { form, group, noContent, route, t } from "../index.js";
import { authUser, jwt, requireRole } from "../auth/index.js";
import { csrf, csrfToken, type ResponseCache } from "../middleware/index.js";
import { ConfigurationError } from "../service/index.js";

/** Development default; production requires KEEL_JWT_SECRET (at least 32 bytes). */
export const DEV_JWT_SECRET = "keel-dev-secret-not-for-production-0123456789";

/** The configured secret; outside production the development one stands in for a missing secret. */
export function jwtSecretFor(production: boolean, configured: string | undefined): string {
  if (configured !== undefined) return configured;
  if (production) throw new ConfigurationError("KEEL_JWT_SECRET must be set in production: give it at least 32 random bytes (or pass --jwt-secret)");
  return DEV_JWT_SECRET;
}

const Me = t.named("Me", t.object({ sub: t.string(), role: t.string() }));
const FormToken = t.named("FormToken", t.object({ csrf_token: t.string(), header: t.string(), field: t.string() }));
const FormReceipt = t.named("FormReceipt", t.object({ message: t.string() }));

export function authRoutes(secret: string, cache: ResponseCache) {
  const auth = jwt({ algorithms: ["HS256"], key: secret });
  const me = route.get(
    "/api/v1/me",
    { tag: "auth", summary: "Who am I (JWT)", layers: [auth], responses: { 200: Me } },
    [authUser<{ role?: string }>()],
    (claims) => ({ sub: claims.sub ?? "", role: claims.role ?? "" }),
  );
  const clearCache = route.delete(
    "/api/v1/admin/cache",
    { tag: "admin", summary: "Clear the response cache (role admin)", layers: [auth], responses: { 204: "The cache is empty" } },
    [requireRole("admin")],
    () => {
      cache.clear();
      return noContent();
    },
  );
  // CSRF tokens are signed with a key derived from the service secret, so every worker and every
  // restart accepts the tokens the others issued.
  const csrfSecret = createHmac("sha256", secret).update("keel-sample csrf tokens").digest();
  const forms = group({ prefix: "/api/v1", tag: "forms", layers: [csrf({ secret: csrfSecret })] }, [
    route.get("/form", { summary: "Issue a CSRF token (cookie csrf_token + body)", responses: { 200: FormToken } }, [csrfToken()], (token) => ({
      csrf_token: token,
      header: "x-csrf-token",
      field: "_csrf",
    })),
    route.post(
      "/form",
      { summary: "A CSRF-protected form post (header X-CSRF-Token or field _csrf)", responses: { 200: FormReceipt } },
      [form(t.object({ message: t.string({ length: { min: 1, max: 500 } }) }))],
      (body) => ({ message: body.message }),
    ),
  ]);
  return [me, clearCache, ...forms] as const;
}
