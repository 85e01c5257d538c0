// rediss:// against redis-server's own TLS port, with a self-signed certificate made for the run.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { RedisConnectionError, redisClient } from "../../lib/redis/index.js";
import { startRedis, type RedisServerHandle } from "../support/redis-server.js";

let server: RedisServerHandle | null = null;
before(async () => {
  server = await startRedis({ tls: true, password: "tls-pass" });
});
after(async () => {
  await server?.stop();
});

test("rediss:// with the CA: AUTH, commands and pub/sub over TLS", async (t) => {
  if (server === null) return t.skip("redis-server not installed");
  if (server.tlsUrl === undefined || server.ca === undefined) return t.skip("openssl not available to make a test certificate");
  const client = redisClient({ url: `${server.tlsUrl}/1`, tls: { ca: server.ca }, resp: 3 });
  try {
    assert.equal(await client.command(["SET", "tls:k", "secure"]), "OK");
    assert.equal(await client.command(["GET", "tls:k"]), "secure");
    const info = (await client.command(["CLIENT", "INFO"])) as string;
    assert.match(info, / db=1 /);
    let wake: (m: string) => void = () => undefined;
    const heard = new Promise<string>((resolve) => (wake = resolve));
    const off = await client.subscribe("tls:ch", (m) => wake(m));
    await client.command(["PUBLISH", "tls:ch", "over tls"]);
    assert.equal(await heard, "over tls");
    await off();
  } finally {
    await client.close();
  }
});

test("an untrusted certificate is a RedisConnectionError, not a hang", async (t) => {
  if (server === null) return t.skip("redis-server not installed");
  if (server.tlsUrl === undefined) return t.skip("openssl not available to make a test certificate");
  const client = redisClient({ url: server.tlsUrl, connectTimeoutMs: 500 });
  try {
    const err = await client.connect().then(() => assert.fail("connected"), (e: unknown) => e);
    assert.ok(err instanceof RedisConnectionError);
    assert.match(err.message, /certificate/);
    await assert.rejects(client.command(["PING"]), RedisConnectionError);
  } finally {
    await client.close();
  }
});
