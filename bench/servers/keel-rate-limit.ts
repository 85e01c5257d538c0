// keel's GET /hello behind rateLimit(), for bench/rate-limit-store.mjs (issue 20: the rate-limit
// scenario with the memory store vs Redis on loopback). Bundled into
// bench/.peers/build/keel-rate-limit.mjs; announces its port like the HTTP bench servers.
//   node keel-rate-limit.mjs --store none                          no rate limit (the baseline)
//   node keel-rate-limit.mjs --store memory                        the default MemoryStore
//   node keel-rate-limit.mjs --store redis --redis-url redis://... redisStore(redisClient(url))
// The bucket never empties (capacity and refill 1e9, as in bench/layers.bench.ts) and every
// request comes from one client address, so each request takes one token from the same bucket:
// the cost measured is the store's round trip, never a 429.
import { App, route, silentLogger, type Layer } from "../../lib/index.js";
import { rateLimit } from "../../lib/middleware/index.js";
import { redisClient, redisStore } from "../../lib/redis/index.js";
import type { TokenBucketState } from "../../lib/stores/index.js";
import { announceReady, exitOnSignal } from "./common.js";
import { HELLO_BODY } from "./route-table.js";

const NEVER_EMPTIES = { capacity: 1e9, refillPerSecond: 1e9 };

type StoreKind = "none" | "memory" | "redis";

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

/** The rate-limit layer for `kind`; with Redis, connected before the server announces itself. */
async function rateLimitLayer(kind: StoreKind): Promise<Layer | null> {
  if (kind === "none") return null;
  if (kind === "memory") return rateLimit(NEVER_EMPTIES);
  const url = argValue("--redis-url");
  if (url === undefined) throw new Error("--store redis needs --redis-url redis://host:port");
  const client = redisClient(url);
  // Fail at start, not with 503s under load, when Redis is not there.
  await client.connect();
  return rateLimit({ ...NEVER_EMPTIES, store: redisStore<TokenBucketState>(client, { prefix: "keel-bench:" }) });
}

async function main(): Promise<void> {
  exitOnSignal();
  const kind = argValue("--store") ?? "memory";
  if (kind !== "none" && kind !== "memory" && kind !== "redis") throw new Error(`--store is none, memory or redis (got ${kind})`);
  const layer = await rateLimitLayer(kind);
  const app = new App({ logger: silentLogger });
  if (layer !== null) app.layer(layer);
  app.routes(route.get("/hello", [], () => HELLO_BODY));
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

main().catch((err: unknown) => {
  process.stderr.write(`keel-rate-limit: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
