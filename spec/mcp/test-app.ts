// The app the MCP specs serve: user routes (tag "users", one of them behind an API key), a route
// of another tag that must not become a tool, and two MCP endpoints: /mcp open, /secure-mcp
// behind the API key itself.
import { ApiError, App, created, json, path, route, silentLogger, t } from "../../lib/index.js";
import { apiKey, apiKeyDigest } from "../../lib/auth/index.js";
import { mcpServer, type McpServer, type McpServerOptions } from "../../lib/mcp/index.js";

export const API_KEY = "mcp-test-key-0123456789abcdef";

const User = t.named("McpUser", t.object({ id: t.u64(), email: t.string({ format: "email" }) }));
const NewUser = t.named("McpNewUser", t.object({ email: t.string({ email: true }), name: t.optional(t.string({ length: { min: 1, max: 40 } })) }));

export function mcpTestApp(options: Partial<McpServerOptions> = {}): { app: App; mcp: McpServer; secure: McpServer } {
  const users = new Map<number, { id: number; email: string }>([[1, { id: 1, email: "alice@example.com" }]]);
  let next = 2;
  const key = apiKey({ keys: [{ sha256: apiKeyDigest(API_KEY), claims: { sub: "tester" } }] });
  const app = new App({ logger: silentLogger }).routes(
    route.get("/users/{id}", { tag: "users", summary: "Get a user", responses: { 200: User, 404: "No such user" } }, [path("id", t.u64())], (id) => {
      const user = users.get(id);
      if (user === undefined) throw ApiError.notFound(`user ${id} not found`);
      return user;
    }),
    route.post("/users", { tag: "users", operationId: "createUser", summary: "Create a user", responses: { 201: User } }, [json(NewUser)], (body) => {
      const user = { id: next++, email: body.email };
      users.set(user.id, user);
      return created(user);
    }),
    route.get("/me", { tag: "users", operationId: "whoAmI", summary: "Who the API key says you are", layers: [key], responses: { 200: t.object({ sub: t.string() }) } }, [], () => ({ sub: "tester" })),
    route.get("/admin/stats", { tag: "admin", summary: "Not a tool" }, [], () => ({ users: users.size })),
  );
  const mcp = mcpServer(app, { name: "keel-test", version: "1.2.3", tools: { tags: ["users"] }, ...options });
  const secure = mcpServer(app, { name: "keel-test-secure", version: "1.2.3", tools: { routes: ["GET /users/{id}"] }, path: "/secure-mcp", layers: [key] });
  return { app, mcp, secure };
}
