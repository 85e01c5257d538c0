// The routes and payloads every benchmark server registers (keel, raw node:http, Fastify, Hono),
// so each implementation routes through the same table and answers with the same bytes.
// Only node built-ins here: the file is bundled into every server.

export type BenchMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface BenchRoute {
  readonly method: BenchMethod;
  /** keel syntax: `/a/{id}`. `toColonPath` gives the `/a/:id` form Fastify and Hono use. */
  readonly path: string;
}

const RESOURCES = ["accounts", "orders", "products", "invoices", "teams", "projects", "tickets", "comments", "tags", "files"];

/**
 * The ~50 routes registered beside the measured ones (scenario 2 routes through them). Some share
 * the `/users` prefix with the measured param route so a router cannot skip them by first segment.
 */
export function benchExtraRoutes(): BenchRoute[] {
  const routes: BenchRoute[] = [
    { method: "GET", path: "/users/me" },
    { method: "GET", path: "/users/search" },
    { method: "GET", path: "/users/{id}/posts" },
    { method: "GET", path: "/users/{id}/posts/{postId}" },
    { method: "DELETE", path: "/users/{id}" },
  ];
  for (const r of RESOURCES) {
    routes.push({ method: "GET", path: `/api/v1/${r}` });
    routes.push({ method: "POST", path: `/api/v1/${r}` });
    routes.push({ method: "GET", path: `/api/v1/${r}/{id}` });
    routes.push({ method: "DELETE", path: `/api/v1/${r}/{id}` });
    routes.push({ method: "GET", path: `/api/v1/${r}/{id}/history` });
  }
  return routes;
}

/** `/users/{id}` -> `/users/:id`. */
export function toColonPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
}

/** What the extra routes answer (never requested by the load; present so the table is real). */
export const EXTRA_ROUTE_BODY = { ok: true } as const;

export const HELLO_BODY = { hello: "world" } as const;

/** Object in the 64 KB response: deterministic, shaped like a page of API records. */
export interface BigItem {
  id: number;
  name: string;
  email: string;
  active: boolean;
  score: number;
  tags: string[];
  created_at: string;
}

/** A list whose JSON is just over 64 KiB. Serialized per request by every server. */
export function makeBigPayload(targetBytes = 65_536): { items: BigItem[]; total: number } {
  const items: BigItem[] = [];
  let size = 24;
  for (let i = 0; size < targetBytes; i++) {
    const item: BigItem = {
      id: i + 1,
      name: `user ${i + 1}`,
      email: `user${i + 1}@example.com`,
      active: i % 3 !== 0,
      score: Math.round(((i * 7919) % 1000) * 1.37) / 10,
      tags: ["alpha", "beta", "gamma"].slice(0, (i % 3) + 1),
      created_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    };
    items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return { items, total: items.length };
}

/** The request body scenario 3 sends (valid) and the one the 422 cell sends (both fields wrong). */
export const VALID_USER = { email: "alice@example.com", password: "correct-horse-battery" } as const;
export const INVALID_USER = { email: "not-an-email", password: "short" } as const;
