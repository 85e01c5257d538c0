// The smallest keel app: two routes, a port from the environment, a clean stop on SIGTERM.
// Run: PORT=3000 npx tsx hello.ts, then curl localhost:3000/hello/ada
import { App, path, route, t } from "keel";

const app = new App().routes(
  route.get("/", [], () => ({ hello: "world" })),
  // `name` is typed from its schema: a string of 1 to 40 characters, else 422 validation_error.
  route.get("/hello/{name}", [path("name", t.string({ length: { min: 1, max: 40 } }))], (name) => ({ hello: name })),
);

// Aborting the signal drains the server: requests in flight finish, then it closes.
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());

const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
