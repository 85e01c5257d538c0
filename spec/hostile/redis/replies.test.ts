// A hostile Redis: replies that announce more than any client should hold (a 512 MiB bulk string,
// a 2^30-element array) and a line that never ends, each followed by a trickle of bytes until the
// client hangs up. The client must fail the command with an error naming its limit, drop the
// connection (the stream is out of step), reconnect, and hold no more than a stated bound
// meanwhile: measured here, in the process of the client (the scripted server writes with
// backpressure from one reused chunk, so it holds next to nothing itself).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { RedisConnectionError, redisClient, type RedisClient } from "../../../lib/redis/index.js";
import { defaultAnswer, startScriptedRedis, type ScriptedRedis } from "../../support/scripted-redis.js";

const MiB = 1024 * 1024;
/** What the server sends after the hostile header, at most (the client should hang up long before). */
const SENT_MAX = 128 * MiB;
/** The bound asserted on the client's growth (heap + array buffers), with the default maxReplyBytes of 32 MiB. */
const BOUND = 48 * MiB;
/** And on its RSS (looser: the allocator and the test runner move it too). */
const RSS_BOUND = 96 * MiB;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

interface Hostile {
  what: string;
  header: string;
  chunk: Buffer;
  error: RegExp;
}

const CASES: Hostile[] = [
  { what: "a 512 MiB bulk string, then a trickle of its bytes", header: "$536870912\r\n", chunk: Buffer.alloc(64 * 1024, 0x61), error: /maxReplyBytes/ },
  { what: "a 2^30-element array, then a trickle of small integers", header: "*1073741824\r\n", chunk: Buffer.from(":1\r\n".repeat(16 * 1024)), error: /maxReplyElements/ },
  { what: "a simple string that never ends", header: "+", chunk: Buffer.alloc(64 * 1024, 0x61), error: /maxLineBytes/ },
];

const servers: ScriptedRedis[] = [];
const clients: RedisClient[] = [];
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
});

function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe("a hostile Redis cannot make the client hold more than its reply limits", () => {
  for (const hostile of CASES) {
    it(`${hostile.what}: the command fails naming the limit, memory stays under ${BOUND / MiB} MiB, the client reconnects`, async (t) => {
      let sent = 0;
      const server = await startScriptedRedis(async (command, connection) => {
        const answer = defaultAnswer(command);
        if (answer !== undefined) return void (await connection.write(answer));
        if (command[0] === "GET" && command[1] === "hostile") {
          await connection.write(hostile.header);
          while (sent < SENT_MAX && (await connection.write(hostile.chunk))) sent += hostile.chunk.length;
          return;
        }
        await connection.write("$-1\r\n");
      });
      servers.push(server);
      const client = redisClient({ url: server.url, poolSize: 1, commandTimeoutMs: 15_000, reconnect: { baseMs: 10, maxMs: 50 } });
      clients.push(client);
      await client.connect();

      gc();
      const before = used();
      const rssBefore = process.memoryUsage().rss;
      let peak = before;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => {
        peak = Math.max(peak, used());
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }, 5);
      const outcome = await client.command(["GET", "hostile"]).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      clearInterval(sampler);
      peak = Math.max(peak, used());
      t.diagnostic(`sent ${(sent / MiB).toFixed(1)} MiB after the header; client growth: heap+buffers ${((peak - before) / MiB).toFixed(1)} MiB, rss ${((rssPeak - rssBefore) / MiB).toFixed(1)} MiB`);

      assert.ok("error" in outcome, "the command must fail");
      const error = outcome.error as Error;
      assert.ok(error instanceof RedisConnectionError, String(error));
      assert.match(error.message, hostile.error);
      assert.ok(peak - before < BOUND, `client grew ${((peak - before) / MiB).toFixed(1)} MiB (bound ${BOUND / MiB} MiB)`);
      assert.ok(rssPeak - rssBefore < RSS_BOUND, `client RSS grew ${((rssPeak - rssBefore) / MiB).toFixed(1)} MiB (bound ${RSS_BOUND / MiB} MiB)`);
      assert.ok(sent < SENT_MAX, "the client hung up before the server had sent everything");

      // The connection was dropped and comes back: the next command is answered.
      for (let i = 0; ; i++) {
        try {
          assert.equal(await client.command(["PING"]), "PONG");
          break;
        } catch (err) {
          if (i > 200) throw err;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      assert.ok(server.accepted >= 2, "a new connection was made");
    });
  }
});
