// Run this twice against one Redis and the two processes act as one service: a client has one
// rate-limit budget across both, and a POST with an Idempotency-Key runs once, whichever
// instance gets the retry (the other answers the stored response, `idempotent-replayed: true`).
// Run:
//   REDIS_URL=redis://127.0.0.1:6379 PORT=3000 npx tsx redis-two-instances.ts &
//   REDIS_URL=redis://127.0.0.1:6379 PORT=3001 npx tsx redis-two-instances.ts &
//   curl -si localhost:3000/ping | grep -i ratelimit-remaining   # 4
//   curl -si localhost:3001/ping | grep -i ratelimit-remaining   # 3: the same budget
import { randomUUID } from "node:crypto";
import { App, created, json, route, t } from "keel";
import { idempotency, rateLimit } from "keel/middleware";
import { redisClient, redisStore } from "keel/redis";

const redis = redisClient(process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379");

// 5 requests at once per client address, then one every 10 s; one Lua script on Redis per request.
const limit = rateLimit({ capacity: 5, refillPerSecond: 0.1, store: redisStore(redis, { prefix: "example:rl:" }) });
const once = idempotency({ store: redisStore(redis, { prefix: "example:idem:" }) });

const Order = t.object({ id: t.string(), item: t.string(), instance: t.u32() });

const app = new App().routes(
  route.get("/ping", { layers: [limit] }, [], () => ({ pong: true })),
  route.post("/orders", { layers: [limit, once], responses: { 201: Order } },
    [json(t.object({ item: t.string({ length: { min: 1, max: 100 } }) }))],
    // `instance` shows which process really ran the order.
    (body) => created({ id: randomUUID(), item: body.item, instance: process.pid })),
);

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
await redis.close(); // after the drain: requests in flight still had Redis
