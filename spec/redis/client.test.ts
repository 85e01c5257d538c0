// keel's Redis client against a real redis-server (started here on a free loopback port):
// round trips of every reply type, RESP3, pipelining, AUTH, SELECT, scripts, command timeouts,
// the error mapper, graceful close. Outages, pub/sub and TLS are in client-*.test.ts.
import { after, before, describe, test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { App, route, silentLogger } from "../../lib/index.js";
import {
  RedisClient,
  RedisConnectionError,
  RedisError,
  RedisTimeoutError,
  parseRedisUrl,
  redisClient,
  redisErrorMapper,
  type RedisReply,
} from "../../lib/redis/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";

let server: RedisServerHandle | null = null;
const clients: RedisClient[] = [];

before(async () => {
  server = await startRedis();
});

after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.stop();
});

/** The shared server, or a visible skip when redis-server is not installed. */
function need(t: TestContext): RedisServerHandle | null {
  if (server === null) t.skip("redis-server not installed");
  return server;
}

function track(client: RedisClient): RedisClient {
  clients.push(client);
  return client;
}

describe("round trips", () => {
  test("strings with UTF-8, CRLF and binary bytes come back unchanged", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    const text = "héllo\r\nwörld 🚀 $5\r\n*1\r\n";
    assert.equal(await client.command(["SET", "rt:text", text]), "OK");
    assert.equal(await client.command(["GET", "rt:text"]), text);

    const binary = Buffer.from([0, 1, 2, 13, 10, 255, 254, 128, 0]);
    await client.command(["SET", "rt:bin", binary]);
    const back = await client.commandBuffer(["GET", "rt:bin"]);
    assert.ok(Buffer.isBuffer(back));
    assert.deepEqual(back, binary);
    assert.equal(await client.command(["STRLEN", "rt:bin"]), binary.length);

    assert.equal(await client.command(["SET", "rt:empty", ""]), "OK");
    assert.equal(await client.command(["GET", "rt:empty"]), "");
    const big = "x".repeat(300_000);
    await client.command(["SET", "rt:big", big]);
    assert.equal(await client.command(["GET", "rt:big"]), big);
  });

  test("integers, numbers as arguments, nil, arrays", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    await client.command(["DEL", "rt:n", "rt:list"]);
    assert.equal(await client.command(["INCRBY", "rt:n", 41]), 41);
    assert.equal(await client.command(["INCRBY", "rt:n", -42]), -1);
    assert.equal(await client.command(["SET", "rt:huge", "9007199254740993"]), "OK");
    assert.equal(await client.command(["INCRBY", "rt:huge", 1]), 9007199254740994n, "beyond 2^53 is a bigint");
    assert.equal(await client.command(["GET", "rt:missing"]), null);
    await client.command(["RPUSH", "rt:list", "a", 2, "ç"]);
    assert.deepEqual(await client.command(["LRANGE", "rt:list", 0, -1]), ["a", "2", "ç"]);
    assert.deepEqual(await client.command(["MGET", "rt:list:none", "rt:n"]), [null, "-1"]);
    assert.deepEqual(await client.command(["LRANGE", "rt:nothing", 0, -1]), []);
    assert.equal(await client.command(["INCRBYFLOAT", "rt:f", 1.5]), "1.5");
  });

  test("error replies reject with RedisError and its code; the connection goes on", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    await client.command(["SET", "rt:str", "v"]);
    const err = await client.command(["LPUSH", "rt:str", "x"]).then(() => assert.fail("resolved"), (e: unknown) => e);
    assert.ok(err instanceof RedisError);
    assert.equal(err.code, "WRONGTYPE");
    await assert.rejects(client.command(["NOSUCHCOMMAND"]), (e: unknown) => e instanceof RedisError && e.code === "ERR");
    assert.equal(await client.command(["GET", "rt:str"]), "v");
  });

  test("an error inside EXEC's results rejects with it, the whole reply attached", async (t) => {
    const s = need(t);
    if (s === null) return;
    // One connection, so MULTI ... EXEC share it.
    const client = track(redisClient({ url: s.url, poolSize: 1 }));
    await client.command(["SET", "rt:tx", "text"]);
    const [multi, a, b, exec] = await Promise.allSettled([
      client.command(["MULTI"]),
      client.command(["INCR", "rt:tx"]),
      client.command(["SET", "rt:tx2", "ok"]),
      client.command(["EXEC"]),
    ]);
    assert.equal(multi.status === "fulfilled" && multi.value, "OK");
    assert.equal(a.status === "fulfilled" && a.value, "QUEUED");
    assert.equal(b.status === "fulfilled" && b.value, "QUEUED");
    assert.equal(exec.status, "rejected");
    const reason = (exec as PromiseRejectedResult).reason as RedisError;
    assert.ok(reason instanceof RedisError);
    assert.equal(reason.code, "ERR");
    const reply = reason.reply as unknown[];
    assert.ok(reply[0] instanceof RedisError);
    assert.equal(reply[1], "OK");
    assert.equal(await client.command(["GET", "rt:tx2"]), "ok");
  });

  test("bad arguments are a TypeError before anything is sent", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    await assert.rejects(client.command(["SET", "k", undefined as never]), TypeError);
    await assert.rejects(client.command([]), TypeError);
    await assert.rejects(client.command(["SET", "k", NaN]), TypeError);
    assert.equal(await client.command(["PING"]), "PONG");
  });
});

describe("RESP3", () => {
  test("maps are null-prototype objects; doubles, booleans, null, big numbers, sets, verbatim", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, resp: 3 }));
    await client.command(["DEL", "r3:h"]);
    await client.command(["HSET", "r3:h", "a", "1", "__proto__", "p"]);
    const map = (await client.command(["HGETALL", "r3:h"])) as Record<string, RedisReply>;
    assert.equal(Object.getPrototypeOf(map), null);
    assert.deepEqual(Object.keys(map), ["a", "__proto__"]);
    assert.equal(map["a"], "1");
    assert.equal(map["__proto__"], "p", "an own key, not a prototype");

    await client.command(["ZADD", "r3:z", "2.5", "m"]);
    assert.equal(await client.command(["ZSCORE", "r3:z", "m"]), 2.5, "a RESP3 double is a number");
    assert.equal(await client.command(["GET", "r3:none"]), null);
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "true"]), true);
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "false"]), false);
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "null"]), null);
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "bignum"]), 1234567999999999999999999999999999999n);
    assert.deepEqual(await client.command(["DEBUG", "PROTOCOL", "set"]), [0, 1, 2]);
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "verbatim"]), "This is a verbatim\nstring");
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "attrib"]), "Some real reply following the attribute");
    // A push frame before the reply is not taken for the reply.
    assert.equal(await client.command(["DEBUG", "PROTOCOL", "push"]), "Some real reply following the push reply");
    const hello = (await client.command(["HELLO"])) as Record<string, RedisReply>;
    assert.equal(hello["proto"], 3);
  });
});

describe("pipelining", () => {
  test("1,000 commands issued at once come back in order", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 2 }));
    await client.connect();
    const sent: Promise<RedisReply>[] = [];
    for (let i = 0; i < 1000; i++) {
      sent.push(i % 3 === 0 ? client.command(["ECHO", `m${i}`]) : client.commandBuffer(["ECHO", `b${i}`]));
    }
    const replies = await Promise.all(sent);
    for (let i = 0; i < 1000; i++) {
      const reply = replies[i];
      if (i % 3 === 0) assert.equal(reply, `m${i}`);
      else assert.deepEqual(reply, Buffer.from(`b${i}`));
    }
  });

  test("commands interleaved with INCR keep their order on each connection", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 1 }));
    await client.command(["DEL", "pl:c"]);
    const replies = await Promise.all(Array.from({ length: 500 }, () => client.command(["INCR", "pl:c"])));
    assert.deepEqual(replies, Array.from({ length: 500 }, (_, i) => i + 1));
  });
});

describe("connecting", () => {
  test("SELECT from the URL's /db; CLIENT SETNAME from the name option", async (t) => {
    const s = need(t);
    if (s === null) return;
    const db3 = track(redisClient({ url: `${s.url}/3`, name: "keel-test" }));
    const db0 = track(redisClient(s.url));
    await db3.command(["SET", "sel:k", "in-3"]);
    assert.equal(await db3.command(["GET", "sel:k"]), "in-3");
    assert.equal(await db0.command(["GET", "sel:k"]), null);
    const info = (await db3.command(["CLIENT", "INFO"])) as string;
    assert.match(info, / db=3 /);
    assert.match(info, / name=keel-test /);
    // resp 3 selects too (HELLO does not).
    const db3r3 = track(redisClient({ url: `${s.url}/3`, resp: 3 }));
    assert.equal(await db3r3.command(["GET", "sel:k"]), "in-3");
  });

  test("ready, onStatus and connect()", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    const seen: string[] = [];
    client.onStatus((status) => seen.push(status));
    await client.connect();
    assert.equal(client.ready, true);
    assert.deepEqual(seen, ["ready"]);
    await client.close();
    assert.equal(client.ready, false);
    assert.deepEqual(seen, ["ready", "down"]);
  });

  test("a client used right after its creation waits for its first connect", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    assert.equal(client.ready, false);
    assert.equal(await client.command(["PING"]), "PONG");
  });

  test("nothing listening: commands reject RedisConnectionError, connect() rejects, no hang", async (t) => {
    const s = need(t);
    if (s === null) return;
    const { freePort } = await import("../support/redis-server.js");
    const port = await freePort();
    const client = track(redisClient({ port, connectTimeoutMs: 300 }));
    await assert.rejects(client.command(["PING"]), RedisConnectionError);
    await assert.rejects(client.connect(), (e: unknown) => e instanceof RedisConnectionError && /not reachable/.test(e.message));
    await client.close();
    await assert.rejects(client.command(["PING"]), /closed/);
  });

  test("toString and inspect never show the password", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: `redis://user:s3cr%40t@127.0.0.1:${s.port}/2`, connectTimeoutMs: 300 }));
    const { inspect } = await import("node:util");
    assert.doesNotMatch(`${client} ${inspect(client, { depth: 10, showHidden: true })} ${JSON.stringify(client)}`, /s3cr/);
    await client.close();
  });
});

describe("AUTH", () => {
  let secured: RedisServerHandle | null = null;
  before(async () => {
    secured = await startRedis({ password: "p@ss:wörd/#1" });
  });
  after(async () => {
    await secured?.stop();
  });

  test("a password in the URL (percent-encoded) or the options authenticates", async (t) => {
    if (secured === null) return t.skip("redis-server not installed");
    const byUrl = track(redisClient(secured.url));
    assert.equal(await byUrl.command(["PING"]), "PONG");
    const byOptions = track(redisClient({ port: secured.port, password: "p@ss:wörd/#1", resp: 3 }));
    assert.equal(await byOptions.command(["PING"]), "PONG");
    const withUser = track(redisClient({ port: secured.port, username: "default", password: "p@ss:wörd/#1" }));
    assert.equal(await withUser.command(["PING"]), "PONG");
  });

  test("a wrong password is a clear error, at once, without the password in it", async (t) => {
    if (secured === null) return t.skip("redis-server not installed");
    for (const resp of [2, 3] as const) {
      const client = track(redisClient({ port: secured.port, password: "wrong-secret", resp, connectTimeoutMs: 5000 }));
      const err = await client.connect().then(() => assert.fail("connected"), (e: unknown) => e);
      assert.ok(err instanceof RedisConnectionError);
      assert.match(err.message, /WRONGPASS/);
      assert.doesNotMatch(err.message, /wrong-secret/);
      assert.ok(err.cause instanceof RedisError);
      await assert.rejects(client.command(["PING"]), (e: unknown) => e instanceof RedisConnectionError && /WRONGPASS/.test(e.message));
      await client.close();
    }
  });

  test("no password against a server that requires one: the handshake's PING is refused NOAUTH, at once, like a wrong password", async (t) => {
    if (secured === null) return t.skip("redis-server not installed");
    const client = track(redisClient({ port: secured.port }));
    const noauth = (e: unknown): boolean => e instanceof RedisConnectionError && /NOAUTH/.test(e.message);
    await assert.rejects(client.command(["GET", "x"]), noauth);
    await assert.rejects(client.connect(), noauth);
  });
});

describe("scripts", () => {
  test("run uses EVALSHA and loads the script on NOSCRIPT (after SCRIPT FLUSH too)", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient(s.url));
    const script = client.script("redis.call('SET', KEYS[1], ARGV[1]); return {KEYS[1], tonumber(ARGV[2]) + 1}");
    assert.match(script.sha, /^[0-9a-f]{40}$/);
    await client.command(["SCRIPT", "FLUSH"]);
    assert.deepEqual(await client.run(script, ["sc:k"], ["v1", 41]), ["sc:k", 42]);
    assert.deepEqual(await client.command(["SCRIPT", "EXISTS", script.sha]), [1]);
    assert.equal(await client.command(["GET", "sc:k"]), "v1");
    await client.command(["SCRIPT", "FLUSH"]);
    assert.deepEqual(await client.run(script, ["sc:k"], ["v2", 1]), ["sc:k", 2]);
    assert.equal(await client.command(["GET", "sc:k"]), "v2");
    const failing = client.script("return redis.error_reply('MYCODE went wrong')");
    await assert.rejects(client.run(failing, [], []), (e: unknown) => e instanceof RedisError && e.code === "MYCODE");
  });
});

describe("timeouts", () => {
  test("a command without reply in time rejects RedisTimeoutError; its late reply never answers a later command", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 1, commandTimeoutMs: 100, reconnect: { baseMs: 10, maxMs: 50 } }));
    await client.connect();
    const err = await client.command(["DEBUG", "SLEEP", "0.5"]).then(() => assert.fail("resolved"), (e: unknown) => e);
    assert.ok(err instanceof RedisTimeoutError);
    assert.ok(err instanceof RedisConnectionError, "a timeout is a connection error (a 503, not a 500)");
    // The server is still asleep: retry until it answers; what answers ECHO must be the ECHO.
    let reply: RedisReply | undefined;
    for (let i = 0; i < 200 && reply === undefined; i++) {
      try {
        reply = await client.command(["ECHO", "mine"]);
      } catch (e) {
        assert.ok(e instanceof RedisConnectionError);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    assert.equal(reply, "mine");
    assert.equal(await client.command(["ECHO", "next"]), "next");
  });
});

describe("timeouts and scripts with staged writes", () => {
  test("the connection's one timer fires again on the next connection; a command after a timed-out one gets its own reply", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 1, commandTimeoutMs: 100, reconnect: { baseMs: 10, maxMs: 50 } }));
    await client.connect();
    for (let round = 0; round < 2; round++) {
      // A burst: the sleeper and commands behind it all lose the connection; none hangs.
      const burst = [client.command(["DEBUG", "SLEEP", "0.3"]), client.command(["ECHO", "behind"]), client.run(client.script("return 1"), [], [])];
      const settled = await Promise.allSettled(burst);
      assert.ok(settled[0]?.status === "rejected" && settled[0].reason instanceof RedisTimeoutError, `round ${round}: the sleeper timed out`);
      for (const r of settled.slice(1)) assert.ok(r.status === "rejected" && r.reason instanceof RedisConnectionError);
      let reply: RedisReply | undefined;
      for (let i = 0; i < 200 && reply === undefined; i++) {
        try {
          reply = await client.command(["ECHO", `mine ${round}`]);
        } catch (e) {
          assert.ok(e instanceof RedisConnectionError);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      assert.equal(reply, `mine ${round}`);
    }
  });

  test("scripts in a burst after SCRIPT FLUSH: each is loaded and answers its own call (text, non-ASCII, numbers, Buffers)", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 1 }));
    const echo = client.script("return {KEYS[1], ARGV[1], ARGV[2]} -- staged burst");
    await client.command(["SCRIPT", "FLUSH"]);
    const calls = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? client.run(echo, [`k${i}é`], [i, "x\r\ny"]) : client.run(echo, [`k${i}`], [Buffer.from([i, 0, 255]), 1.5]),
    );
    const replies = await Promise.all(calls);
    replies.forEach((reply, i) => {
      if (i % 2 === 0) assert.deepEqual(reply, [`k${i}é`, String(i), "x\r\ny"]);
      else assert.deepEqual(reply, [`k${i}`, Buffer.from([i, 0, 255]).toString("utf8"), "1.5"]);
    });
    await assert.rejects(client.run(echo, ["k"], [null as never]), TypeError);
    assert.deepEqual(await client.run(echo, ["after"], ["ok", 1]), ["after", "ok", "1"]);
  });
});

describe("close", () => {
  test("close() lets commands in flight finish, then later commands reject", async (t) => {
    const s = need(t);
    if (s === null) return;
    const client = track(redisClient({ url: s.url, poolSize: 2 }));
    await client.connect();
    const inFlight = Array.from({ length: 200 }, (_, i) => client.command(["ECHO", String(i)]));
    const slow = client.command(["DEBUG", "SLEEP", "0.05"]);
    const closing = client.close();
    await assert.rejects(client.command(["PING"]), (e: unknown) => e instanceof RedisConnectionError && /closed/.test(e.message));
    assert.deepEqual(await Promise.all(inFlight), Array.from({ length: 200 }, (_, i) => String(i)));
    assert.equal(await slow, "OK");
    await closing;
    assert.equal(client.ready, false);
    await client.close(); // idempotent
  });
});

describe("error mapper", () => {
  test("a RedisConnectionError answers 503 with retry-after by itself, with nothing registered on the app", async () => {
    const app = new App({ logger: silentLogger }).route(
      route.get("/down", [], () => {
        throw new RedisConnectionError("connection lost");
      }),
    );
    const res = await app.inject({ url: "/down" });
    assert.equal(res.status, 503);
    assert.equal(res.headers["retry-after"], "1");
    assert.equal(redisErrorMapper(new RedisConnectionError("x"))?.status, 503);
  });

  test("a RedisConnectionError thrown in a handler is a 503 with retry-after", async (t) => {
    const s = need(t);
    if (s === null) return;
    const down = track(redisClient({ port: (await import("../support/redis-server.js").then((m) => m.freePort())), connectTimeoutMs: 200 }));
    const app = new App({ logger: silentLogger, env: "development" }).routes(
      route.get("/down", [], async () => ({ value: await down.command(["GET", "k"]) })),
      route.get("/timeout", [], () => {
        throw new RedisTimeoutError("no reply");
      }),
      route.get("/redis-error", [], () => {
        throw new RedisError("ERR something");
      }),
    );
    const res = await app.inject({ method: "GET", url: "/down" });
    assert.equal(res.status, 503);
    assert.equal(res.headers["retry-after"], "1");
    assert.equal(res.json<{ error: { type: string } }>().error.type, "service_unavailable");
    assert.equal((await app.inject({ method: "GET", url: "/timeout" })).status, 503);
    assert.equal((await app.inject({ method: "GET", url: "/redis-error" })).status, 500, "a server error reply is a bug, not an outage");
    assert.equal(redisErrorMapper(new Error("x")), undefined);
  });
});

describe("URLs", () => {
  test("redis:// and rediss:// with percent-encoded credentials and a db", () => {
    assert.deepEqual({ ...parseRedisUrl("redis://u%40x:p%3Aw%2F@example.com:7000/5") }, {
      host: "example.com",
      port: 7000,
      tls: false,
      username: "u@x",
      password: "p:w/",
      db: 5,
    });
    assert.deepEqual({ ...parseRedisUrl("rediss://:secret@[::1]") }, { host: "::1", port: 6379, tls: true, password: "secret" });
    assert.deepEqual({ ...parseRedisUrl("redis://localhost/") }, { host: "localhost", port: 6379, tls: false });
  });

  test("bad URLs are a TypeError that names the problem and masks the password", () => {
    for (const [url, why] of [
      ["http://u:topsecret@h:1", /scheme/],
      ["redis://u:topsecret@h:1/abc", /database number/],
      ["not a url :topsecret@", /Invalid Redis URL/],
      ["redis://u:topsecret@h:99999", /Invalid Redis URL/],
    ] as const) {
      assert.throws(
        () => redisClient(url),
        (e: unknown) => e instanceof TypeError && why.test(e.message) && !e.message.includes("topsecret") && e.cause === undefined,
        url,
      );
    }
  });
});
