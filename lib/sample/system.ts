// Stateless routes: ping, hello, the tenant's projects (a validated header), a text echo, and a
// route that always fails (shows 5xx masking under KEEL_ENV=production).
import { ApiError, header, route, t, text } from "../index.js";

const Ping = t.named("Ping", t.object({ status: t.string() }));
const ProjectList = t.named("ProjectList", t.object({ service: t.string(), items: t.array(t.string()) }));
const Echo = t.named("Echo", t.object({ content: t.string() }));

export const ping = route.get("/api/v1/ping", { tag: "system", summary: "Liveness ping", responses: { 200: Ping } }, [], () => ({
  status: "ok",
}));

export const hello = route.get("/hello", { tag: "system", summary: "Say hello", responses: { 200: t.string() } }, [], () => "Hello, World!");

/** `x-tenant-id`, trimmed; missing or blank is a 400. */
const tenantId = header("x-tenant-id").map((v) => {
  const trimmed = v.trim();
  if (trimmed === "") throw ApiError.badRequest("Header x-tenant-id must not be blank");
  return trimmed;
});

export const listProjects = route.get(
  "/projects",
  { tag: "projects", summary: "List the tenant's projects", responses: { 200: ProjectList } },
  [tenantId],
  (tenant) => ({ service: tenant, items: ["alpha", "beta", "gamma"] }),
);

export const echoText = route.post(
  "/echo-text",
  { tag: "system", summary: "Echo a UTF-8 text body", responses: { 200: Echo } },
  [text()],
  (content) => ({ content }),
);

export const broken = route.get(
  "/api/v1/broken",
  { tag: "system", summary: "Always fails (shows 5xx masking under KEEL_ENV=production)", responses: { 500: "Always: a simulated storage failure" } },
  [],
  () => {
    throw ApiError.internal("Storage error", { detail: "simulated storage failure: disk quota exceeded on /var/lib/keel" });
  },
);
