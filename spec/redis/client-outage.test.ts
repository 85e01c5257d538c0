// Redis going away and coming back: fail fast while down, recovery without a new client,
// commands in flight when the server dies, pub/sub resubscribing after a restart, and a server
// that speaks garbage (the connection is reset, the process lives on).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { RedisClient, RedisConnectionError, redisClient, type RedisStatus } from "../../lib/redis/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";

const clients: RedisClient[] = [];
function track(client: RedisClient): RedisClient {
  clients.push(client);
  return client;
}

/**
 * Resolves at the next status equal to `wanted`; rejects after 10 s. The client's reconnect timers
 * are unref'd (a client never holds a process open), so while it only waits for one, nothing
 * else may keep the event loop running: the deadline's timer does (without it, a reconnect that
 * came late on a busy machine ended the test with "the event loop has already resolved").
 */
function nextStatus(client: RedisClient, wanted: RedisStatus): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      off();
      reject(new Error(`no "${wanted}" status within 10 s`));
    }, 10_000);
    const off = client.onStatus((status) => {
      if (status === wanted) {
        clearTimeout(deadline);
        off();
        resolve();
      }
    });
  });
}

/** Retries `fn` until it resolves (bounded), for the moments right after a restart. */
async function eventually<T>(fn: () => Promise<T>, attempts = 300): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

before(() => process.on("unhandledRejection", onUnhandled));
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  process.off("unhandledRejection", onUnhandled);
  assert.deepEqual(unhandled, [], "no unhandled rejections during an outage");
});

describe("outage", () => {
  let server: RedisServerHandle | null = null;
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server?.stop();
  });

  test("server down: commands reject RedisConnectionError; back up: the same client works, data kept", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient({ url: server.url, reconnect: { baseMs: 20, maxMs: 100 } }));
    const sub = track(redisClient(server.url));
    await client.command(["SET", "outage:k", "kept"]);
    const down = nextStatus(client, "down");
    server.kill();
    await down;
    assert.equal(client.ready, false);
    for (let i = 0; i < 5; i++) {
      await assert.rejects(client.command(["GET", "outage:k"]), (e: unknown) => e instanceof RedisConnectionError && /not connected/.test(e.message));
    }
    await assert.rejects(client.commandBuffer(["GET", "outage:k"]), RedisConnectionError);
    await assert.rejects(client.run(client.script("return 1"), [], []), RedisConnectionError);

    const up = nextStatus(client, "ready");
    await server.restart();
    await up;
    assert.equal(client.ready, true);
    assert.equal(await client.command(["GET", "outage:k"]), "kept", "AOF with fsync always kept the write");
    await client.connect();
    assert.equal(await eventually(() => sub.command(["PING"])), "PONG");
  });

  test("commands in flight when the server dies reject RedisConnectionError (they may or may not have run)", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient({ url: server.url, poolSize: 1, commandTimeoutMs: 5000 }));
    await client.connect();
    const observer = track(redisClient(server.url));
    const blocked = client.command(["BLPOP", "outage:never", 0]);
    const behind = client.command(["PING"]);
    // Let them reach the server, then pull the plug.
    await eventually(async () => {
      const list = (await observer.command(["CLIENT", "LIST"])) as string;
      if (!/cmd=blpop/.test(list)) throw new Error("not blocked yet");
    });
    server.kill();
    const [a, b] = await Promise.allSettled([blocked, behind]);
    for (const settled of [a, b]) {
      assert.equal(settled.status, "rejected");
      const reason = (settled as PromiseRejectedResult).reason as Error;
      assert.ok(reason instanceof RedisConnectionError);
      assert.match(reason.message, /may or may not have run/);
    }
    await server.restart();
    await client.connect();
    assert.equal(await eventually(() => client.command(["PING"])), "PONG");
  });
});

describe("pub/sub", () => {
  let server: RedisServerHandle | null = null;
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server?.stop();
  });

  test("messages reach listeners; unsubscribe stops them; a restart resubscribes", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient({ url: server.url, reconnect: { baseMs: 20, maxMs: 100 } }));
    const received: string[] = [];
    const other: string[] = [];
    let wake: (() => void) | null = null;
    const arrived = (): Promise<void> => new Promise((resolve) => (wake = resolve));
    const unsubscribe = await client.subscribe("ch:a", (m) => {
      received.push(m);
      wake?.();
    });
    const unsubscribeOther = await client.subscribe("ch:a", (m) => other.push(m));

    let got = arrived();
    assert.equal(await client.command(["PUBLISH", "ch:a", "héllo\r\n1"]), 1, "both listeners share one subscription");
    await got;
    assert.deepEqual(received, ["héllo\r\n1"]);
    assert.deepEqual(other, ["héllo\r\n1"]);
    await unsubscribeOther();
    await unsubscribeOther(); // idempotent

    await server.restart();
    await client.connect();
    // Resubscribed in the background after the restart: publish until someone hears it.
    got = arrived();
    await eventually(async () => {
      const heard = await client.command(["PUBLISH", "ch:a", "after-restart"]);
      if (heard !== 1) throw new Error("not resubscribed yet");
    });
    await got;
    assert.equal(received.at(-1), "after-restart");
    assert.deepEqual(other, ["héllo\r\n1"], "the removed listener hears nothing");

    await unsubscribe();
    assert.equal(await client.command(["PUBLISH", "ch:a", "nobody"]), 0);
  });

  test("one function subscribed twice: each unsubscribe removes one subscription, not both", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient(server.url));
    const seen: string[] = [];
    let wake: (() => void) | null = null;
    const listener = (m: string): void => {
      seen.push(m);
      wake?.();
    };
    const first = await client.subscribe("ch:same", listener);
    const second = await client.subscribe("ch:same", listener);
    const publish = async (m: string): Promise<void> => {
      const got = new Promise<void>((resolve) => (wake = resolve));
      await client.command(["PUBLISH", "ch:same", m]);
      await got;
    };
    await publish("both");
    assert.deepEqual(seen, ["both", "both"], "two subscriptions, two calls");
    await first();
    await publish("one");
    assert.deepEqual(seen, ["both", "both", "one"], "still subscribed, once");
    await second();
    assert.equal(await client.command(["PUBLISH", "ch:same", "none"]), 0);
  });

  test("a listener that throws does not break the subscription", async (t) => {
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient(server.url));
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on("warning", onWarning);
    const seen: string[] = [];
    let wake: (() => void) | null = null;
    await client.subscribe("ch:b", () => {
      throw new Error("listener bug");
    });
    await client.subscribe("ch:b", (m) => {
      seen.push(m);
      wake?.();
    });
    for (const m of ["1", "2"]) {
      const got = new Promise<void>((resolve) => (wake = resolve));
      await client.command(["PUBLISH", "ch:b", m]);
      await got;
    }
    assert.deepEqual(seen, ["1", "2"]);
    await new Promise((r) => setImmediate(r));
    process.off("warning", onWarning);
    assert.ok(warnings.some((w) => /listener bug/.test(w)));
  });

  test("subscribe while the server is down rejects RedisConnectionError", async (t) => {
    const { freePort } = await import("../support/redis-server.js");
    if (server === null) return t.skip("redis-server not installed");
    const client = track(redisClient({ port: await freePort(), connectTimeoutMs: 200 }));
    await assert.rejects(client.subscribe("ch:c", () => undefined), RedisConnectionError);
  });
});

describe("a server that accepts connections but cannot serve yet", () => {
  let fake: Server | null = null;
  const sockets = new Set<Socket>();
  let accepted = 0;
  before(async () => {
    // What Redis answers while it loads its dataset after a restart (AUTH, SELECT and HELLO still pass).
    fake = createServer((socket) => {
      accepted++;
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
      socket.on("data", () => socket.write("-LOADING Redis is loading the dataset in memory\r\n"));
    });
    await new Promise<void>((resolve) => fake!.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => fake?.close(resolve));
  });

  test("LOADING is an outage (RedisConnectionError, a 503), not a server error on every command; connect() waits it out", async () => {
    const address = fake!.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    const client = track(redisClient({ port, poolSize: 1, connectTimeoutMs: 300, reconnect: { baseMs: 1000, maxMs: 1000 } }));
    await assert.rejects(client.command(["GET", "k"]), (e: unknown) => e instanceof RedisConnectionError && /LOADING/.test(e.message));
    assert.equal(client.ready, false);
    assert.ok(accepted >= 1);
    await assert.rejects(client.connect(), (e: unknown) => e instanceof RedisConnectionError && /not reachable within 300 ms/.test(e.message));
    await client.close();
  });
});

describe("a server speaking garbage", () => {
  let fake: Server | null = null;
  const sockets = new Set<Socket>();
  let answer = "";
  before(async () => {
    fake = createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
      socket.on("data", () => socket.write(answer));
    });
    await new Promise<void>((resolve) => fake!.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => fake?.close(resolve));
  });

  for (const [what, bytes] of [
    ["an absurd bulk length", "$999999999999\r\n"],
    ["an unknown type byte", "?what\r\n"],
    ["a reply nobody asked for", "+OK\r\n+EXTRA\r\n"],
  ] as const) {
    test(`${what} resets the connection with RedisConnectionError`, async () => {
      answer = bytes;
      const address = fake!.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const client = track(redisClient({ port, poolSize: 1, reconnect: { baseMs: 1000, maxMs: 1000 } }));
      const result = await client.command(["PING"]).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      if (what === "a reply nobody asked for") {
        // The handshake's PING takes the first reply; the extra one resets the connection.
        assert.ok("error" in result && result.error instanceof RedisConnectionError, String((result as { error?: unknown }).error));
        assert.match((result.error as Error).message, /a reply arrived for no command/);
      } else {
        assert.ok("error" in result && result.error instanceof RedisConnectionError, String((result as { error?: unknown }).error));
        assert.match((result.error as Error).message, /protocol error/);
      }
      await client.close();
    });
  }
});
