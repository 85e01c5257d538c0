// The examples of docs/examples/ (issue 36): each is type-checked (one tsc run over all of them)
// and run once as its own process, as a user would run it (`node --import tsx <file>`, PORT=0 so
// the system picks a free port, read back from its "listening on <url>" line), against real
// clients: HTTP requests, a WebSocket client (Node's global one, or the `ws` test peer on Node
// 20), an event-stream reader, grpc-js, a redis-server of our own for two instances at once, and
// the vendored single file built by scripts/build.mjs in a temp dir. Each process must then stop
// on SIGTERM with exit code 0. The examples import `keel/*` through docs/examples/tsconfig.json
// `paths` (checked here against scripts/features.mjs PACKAGE_ENTRIES), except vendored.ts.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { HEALTH_PROTO_SOURCE } from "../../lib/grpc/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { grpc, grpcPeersSkip, protoLoader } from "../support/grpc-peers.js";
import { startRedis } from "../support/redis-server.js";
import { testPeer } from "../support/test-peers.js";

type Any = any;

const root = fileURLToPath(new URL("../../", import.meta.url));
const examples = join(root, "docs/examples");
/** Every example, in the order of docs/examples/README.md. */
const EXAMPLES = ["hello.ts", "crud.ts", "jwt.ts", "ws-chat.ts", "sse.ts", "grpc.ts", "redis-two-instances.ts", "vendored.ts"];
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const OUTPUT_TAIL_CHARS = 20_000;

// ---------------------------------------------------------------------------------------------
// The vendored build, started at once so it runs while the other examples do.

interface FeaturesModule {
  PACKAGE_ENTRIES: Array<{ subpath: string; entry: string }>;
}
const features = (await import(pathToFileURL(join(root, "scripts/features.mjs")).href)) as FeaturesModule;

/** The `--features` list vendored.ts's own instructions build with. */
function vendoredFeatures(): string {
  const m = /node scripts\/build\.mjs --features (\S+)/.exec(readFileSync(join(examples, "vendored.ts"), "utf8"));
  assert.ok(m, "vendored.ts says how to build its vendored file (node scripts/build.mjs --features ...)");
  return m[1]!;
}

// Inside the repo (the ignored .tmp/) so tsx, typescript and @types/node resolve as in a project
// that has them installed.
mkdirSync(join(root, ".tmp"), { recursive: true });
const work = mkdtempSync(join(root, ".tmp", "examples-test-"));

/** Exit code and output of a child process run to its end. */
function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => void (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => void (output += d.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** scripts/build.mjs --features <vendored.ts's list> into work/dist, then keel.js + keel.d.ts to work/vendor/ beside a copy of vendored.ts. */
const vendoredBuild = (async () => {
  const built = await run([join(root, "scripts/build.mjs"), "--features", vendoredFeatures(), "--no-typecheck", "--outdir", join(work, "dist")], root);
  if (built.code !== 0) return `build failed (exit ${built.code}):\n${built.output}`;
  mkdirSync(join(work, "vendor"));
  for (const name of ["keel.js", "keel.d.ts"]) copyFileSync(join(work, "dist", name), join(work, "vendor", name));
  copyFileSync(join(examples, "vendored.ts"), join(work, "vendored.ts"));
  return null;
})();
// Reported by the tests that await it; not an unhandled rejection meanwhile.
vendoredBuild.catch(() => undefined);
// After the build has ended (it still runs when tests are filtered out), or it writes into a removed dir.
after(async () => {
  await vendoredBuild.catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Running an example

interface Example {
  url: string;
  output(): string;
  /** SIGTERM and wait for the exit code (SIGKILL and fail after STOP_TIMEOUT_MS). */
  stop(): Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

async function start(file: string, env: Record<string, string> = {}, cwd = examples): Promise<Example> {
  // cwd is docs/examples, so tsx reads its tsconfig.json (the `paths` to lib/).
  const child = spawn(process.execPath, ["--import", "tsx", file], { cwd, env: { ...process.env, ...env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let out = "";
  const keep = (d: Buffer): void => {
    out += d.toString();
    if (out.length > 2 * OUTPUT_TAIL_CHARS) out = out.slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(`printed no "listening on" line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const fail = (why: string): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${file} ${why}:\n${out}`));
    };
    const look = (): void => {
      const m = /listening on (\S+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout.off("data", look);
      resolve(m[1]!);
    };
    child.stdout.on("data", look);
    void exited.then((code) => fail(`exited (${code}) before listening`));
  });
  return {
    url,
    output: () => out,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs `body` against the example, then checks that SIGTERM stops it with exit code 0. */
async function withExample(file: string, body: (ex: Example) => Promise<void>, env?: Record<string, string>, cwd?: string): Promise<void> {
  const ex = await start(file, env, cwd);
  try {
    await body(ex);
  } catch (error) {
    await ex.stop();
    throw error;
  }
  assert.equal(await ex.stop(), 0, `${file} stops on SIGTERM with exit code 0:\n${ex.output()}`);
}

async function getJson(url: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: Any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) };
}

const sendJson = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** Parse text/event-stream as an EventSource does: blank-line separated events of `field: value` lines. */
function parseEvents(text: string): Array<{ event?: string; id?: string; data: string }> {
  const events: Array<{ event?: string; id?: string; data: string }> = [];
  for (const block of text.split("\n\n")) {
    const event: { event?: string; id?: string; data: string } = { data: "" };
    let hasData = false;
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
      else if (field === "data") {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      }
    }
    if (hasData) events.push(event);
  }
  return events;
}

// ---------------------------------------------------------------------------------------------
// A WebSocket client: Node's global WebSocket (22+), else the `ws` test peer, which has the same
// EventTarget API (text messages as strings).

const WS_VERSION = "8.18.3";
type WsLike = {
  addEventListener(type: string, listener: (event: Any) => void): void;
  send(data: string): void;
  close(): void;
};
const globalWs = (globalThis as { WebSocket?: new (url: string) => WsLike }).WebSocket;
const wsPeerDir = globalWs === undefined ? await testPeer("ws", WS_VERSION) : null;
const WsClient: (new (url: string) => WsLike) | undefined =
  globalWs ?? (wsPeerDir === null ? undefined : ((await import(pathToFileURL(join(wsPeerDir, "index.js")).href)) as { default: new (url: string) => WsLike }).default);
const wsSkip = WsClient === undefined ? `no global WebSocket and ws@${WS_VERSION} could not be installed (offline?)` : false;

/** A connected client whose messages can be awaited in order, and whose close code can be. */
async function wsConnect(url: string): Promise<{ ws: WsLike; next(): Promise<string>; closed: Promise<number> }> {
  const ws = new WsClient!(url);
  const queue: string[] = [];
  const waiters: Array<(m: string) => void> = [];
  ws.addEventListener("message", (e) => {
    const text = String(e.data);
    const w = waiters.shift();
    if (w !== undefined) w(text);
    else queue.push(text);
  });
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code as number)));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error(`WebSocket ${url} failed`)));
  });
  return { ws, closed, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))) };
}

/** The status the server answers a WebSocket upgrade request with, when it refuses it. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": randomBytes(16).toString("base64"), ...headers },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on("error", reject);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------

describe("docs/examples", () => {
  it("holds exactly the listed examples, each 10-60 lines and named in docs/examples/README.md", () => {
    const present = readdirSync(examples).filter((f) => f.endsWith(".ts")).sort();
    assert.deepEqual(present, [...EXAMPLES].sort());
    const readme = readFileSync(join(examples, "README.md"), "utf8");
    for (const file of EXAMPLES) {
      const lines = readFileSync(join(examples, file), "utf8").trimEnd().split("\n").length;
      assert.ok(lines >= 10 && lines <= 60, `${file}: ${lines} lines`);
      assert.ok(readme.includes(`(${file})`), `README.md links ${file}`);
    }
  });

  it("tsconfig.json `paths` map every entry name to the source its package entry is built from", () => {
    // JSON with // comment lines, as tsconfig allows.
    const text = readFileSync(join(examples, "tsconfig.json"), "utf8").split("\n").filter((l) => !l.trimStart().startsWith("//")).join("\n");
    const config = JSON.parse(text) as { compilerOptions: { paths: Record<string, string[]> } };
    const expected = Object.fromEntries(features.PACKAGE_ENTRIES.map((e) => [e.subpath === "." ? "keel" : `keel/${e.subpath.slice(2)}`, [`../../${e.entry}`]]));
    assert.deepEqual(config.compilerOptions.paths, expected);
  });

  it("hello.ts answers its two routes", async () => {
    await withExample("hello.ts", async ({ url }) => {
      assert.deepEqual(await getJson(`${url}/`).then((r) => [r.status, r.body]), [200, { hello: "world" }]);
      assert.deepEqual(await getJson(`${url}/hello/ada`).then((r) => [r.status, r.body]), [200, { hello: "ada" }]);
      const tooLong = await getJson(`${url}/hello/${"a".repeat(41)}`);
      assert.equal(tooLong.status, 422);
      assert.equal(tooLong.body.error.type, "validation_error");
    });
  });

  it("crud.ts creates, reads, updates and deletes, and sends only what the contract declares", async () => {
    await withExample("crud.ts", async ({ url }) => {
      const made = await getJson(`${url}/notes`, sendJson("POST", { text: "buy milk" }));
      assert.equal(made.status, 201);
      assert.equal(made.headers.get("location"), "/notes/1");
      assert.deepEqual(made.body, { id: 1, text: "buy milk", done: false }); // no editedBy
      const invalid = await getJson(`${url}/notes`, sendJson("POST", { text: "" }));
      assert.equal(invalid.status, 422);
      assert.equal(invalid.body.error.type, "validation_error");
      assert.equal(invalid.body.error.fields[0].field, "text");
      const updated = await getJson(`${url}/notes/1`, sendJson("PUT", { text: "buy oat milk", done: true }));
      assert.deepEqual([updated.status, updated.body], [200, { id: 1, text: "buy oat milk", done: true }]);
      assert.deepEqual(await getJson(`${url}/notes`).then((r) => [r.status, r.body]), [200, [{ id: 1, text: "buy oat milk", done: true }]]);
      assert.deepEqual(await getJson(`${url}/notes/1`).then((r) => r.body), { id: 1, text: "buy oat milk", done: true });
      const deleted = await getJson(`${url}/notes/1`, { method: "DELETE" });
      assert.deepEqual([deleted.status, deleted.body], [204, undefined]);
      const gone = await getJson(`${url}/notes/1`);
      assert.deepEqual([gone.status, gone.body.error.type, gone.body.error.message], [404, "not_found", "note 1 not found"]);
      assert.equal((await getJson(`${url}/notes/1`, { method: "DELETE" })).status, 404);
    });
  });

  it("jwt.ts lets in valid tokens only, and admins only to /admin", async () => {
    const secret = randomBytes(32).toString("hex");
    const token = (claims: Record<string, unknown>, issuer = "example"): string =>
      signJwt(claims, { algorithm: "HS256", key: secret, subject: "ada", issuer, expiresIn: 600 });
    await withExample("jwt.ts", async ({ url }) => {
      const bearer = (t: string): RequestInit => ({ headers: { authorization: `Bearer ${t}` } });
      assert.deepEqual(await getJson(`${url}/public`).then((r) => [r.status, r.body]), [200, { open: true }]);
      const none = await getJson(`${url}/me`);
      assert.equal(none.status, 401);
      assert.equal(none.body.error.type, "unauthorized");
      assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer /);
      assert.equal((await getJson(`${url}/me`, bearer(token({}, "someone-else")))).status, 401);
      assert.deepEqual(await getJson(`${url}/me`, bearer(token({}))).then((r) => [r.status, r.body]), [200, { sub: "ada" }]);
      const user = await getJson(`${url}/admin`, bearer(token({ role: "user" })));
      assert.deepEqual([user.status, user.body.error.type], [403, "forbidden"]);
      assert.deepEqual(await getJson(`${url}/admin`, bearer(token({ role: "admin" }))).then((r) => [r.status, r.body]), [200, { welcome: "ada" }]);
    }, { JWT_SECRET: secret });
  });

  it("ws-chat.ts refuses a bad query and another origin, broadcasts to the sender's room only, and closes sockets with 1001 on SIGTERM", { skip: wsSkip }, async () => {
    const ex = await start("ws-chat.ts");
    try {
      const ws = ex.url.replace(/^http/, "ws");
      assert.equal(await upgradeStatus(`${ex.url}/chat?room=no%20spaces&name=ada`), 422);
      // Same origin by default: a page of another origin is refused, as the file's header says.
      assert.equal(await upgradeStatus(`${ex.url}/chat?room=lobby&name=ada`, { origin: "https://elsewhere.example" }), 403);
      const ada = await wsConnect(`${ws}/chat?room=lobby&name=ada`);
      const bob = await wsConnect(`${ws}/chat?room=lobby&name=bob`);
      const cy = await wsConnect(`${ws}/chat?room=kitchen&name=cy`);
      ada.ws.send("hello");
      assert.deepEqual(JSON.parse(await ada.next()), { from: "ada", text: "hello" });
      assert.deepEqual(JSON.parse(await bob.next()), { from: "ada", text: "hello" });
      // cy's first message is its own: had "hello" reached it, it would have come first.
      cy.ws.send("tea?");
      assert.deepEqual(JSON.parse(await cy.next()), { from: "cy", text: "tea?" });
      const stopped = ex.stop();
      assert.deepEqual(await Promise.all([ada.closed, bob.closed, cy.closed]), [1001, 1001, 1001]);
      assert.equal(await stopped, 0, ex.output());
    } finally {
      await ex.stop();
    }
  });

  it("sse.ts streams ticks, resumes after Last-Event-ID, and ends open streams on SIGTERM", async () => {
    const ex = await start("sse.ts");
    try {
      const res = await fetch(`${ex.url}/ticks?max=3`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
      assert.deepEqual(parseEvents(await res.text()), [1, 2, 3].map((n) => ({ event: "tick", id: String(n), data: JSON.stringify({ n }) })));
      const resumed = await fetch(`${ex.url}/ticks?max=2`, { headers: { "last-event-id": "7" } });
      assert.deepEqual(parseEvents(await resumed.text()).map((e) => e.id), ["8", "9"]);
      assert.equal((await fetch(`${ex.url}/ticks?max=x`)).status, 422);
      // An endless stream: read its first event, then SIGTERM; the stream ends and so does the process.
      const endless = await fetch(`${ex.url}/ticks`);
      const reader = endless.body!.getReader();
      let text = "";
      while (!text.includes("\n\n")) {
        const { value, done } = await reader.read();
        assert.ok(!done);
        text += Buffer.from(value).toString();
      }
      const stopped = ex.stop();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      assert.equal(parseEvents(text)[0]?.id, "1");
      assert.equal(await stopped, 0, ex.output());
    } finally {
      await ex.stop();
    }
  });

  it("grpc.ts answers grpc-js: unary, server streaming, INVALID_ARGUMENT, health", { skip: grpcPeersSkip }, async () => {
    const options = { longs: String, enums: String, defaults: true, oneofs: true };
    const Greeter = grpc.loadPackageDefinition(protoLoader.loadSync(join(examples, "greeter.proto"), options)).greeter.v1.Greeter;
    const healthProto = join(work, "health.proto");
    writeFileSync(healthProto, HEALTH_PROTO_SOURCE);
    const Health = grpc.loadPackageDefinition(protoLoader.loadSync(healthProto, options)).grpc.health.v1.Health;
    await withExample("grpc.ts", async ({ url }) => {
      const target = url.replace(/^http:\/\//, "");
      const client = new Greeter(target, grpc.credentials.createInsecure());
      const health = new Health(target, grpc.credentials.createInsecure());
      try {
        const unary = (req: object): Promise<{ code: number; message?: string; reply?: Any }> =>
          new Promise((resolve) => client.SayHello(req, (err: Any, reply: Any) => resolve(err ? { code: err.code, message: err.details } : { code: 0, reply })));
        assert.deepEqual(await unary({ name: "ada" }), { code: 0, reply: { message: "Hello, ada!" } });
        assert.deepEqual(await unary({ name: "" }), { code: grpc.status.INVALID_ARGUMENT, message: "name must be 1 to 40 characters" });
        const messages = await new Promise<string[]>((resolve, reject) => {
          const got: string[] = [];
          const call = client.SayHelloMany({ name: "bob", times: 3 });
          call.on("data", (m: Any) => got.push(m.message));
          call.on("error", reject);
          call.on("end", () => resolve(got));
        });
        assert.deepEqual(messages, ["Hello #1, bob!", "Hello #2, bob!", "Hello #3, bob!"]);
        const status = await new Promise<string>((resolve, reject) =>
          health.Check({ service: "greeter.v1.Greeter" }, (err: Any, res: Any) => (err ? reject(err) : resolve(res.status))));
        assert.equal(status, "SERVING");
      } finally {
        client.close();
        health.close();
      }
    });
  });

  it("redis-two-instances.ts: two processes share one rate-limit budget and one idempotency record", async (t) => {
    const redis = await startRedis({ appendonly: false });
    if (redis === null) return t.skip("redis-server is not installed");
    const a = await start("redis-two-instances.ts", { REDIS_URL: redis.url });
    try {
      await withExample("redis-two-instances.ts", async (b) => {
        const remaining = async (res: Promise<{ headers: Headers }>) => (await res).headers.get("ratelimit-remaining");
        // Capacity 5, one token back every 10 s: each request below takes one from the same bucket.
        assert.equal(await remaining(getJson(`${a.url}/ping`)), "4");
        assert.equal(await remaining(getJson(`${b.url}/ping`)), "3");
        const order = sendJson("POST", { item: "tea" }, { "idempotency-key": "order-1" });
        const first = await getJson(`${a.url}/orders`, order);
        assert.equal(first.status, 201);
        assert.equal(first.headers.get("idempotent-replayed"), null);
        const retry = await getJson(`${b.url}/orders`, order);
        assert.equal(retry.status, 201);
        assert.equal(retry.headers.get("idempotent-replayed"), "true");
        assert.deepEqual(retry.body, first.body); // the same order id, run by instance a
        assert.equal(await remaining(getJson(`${b.url}/ping`)), "0");
        const limited = await getJson(`${a.url}/ping`);
        assert.deepEqual([limited.status, limited.body.error.type], [429, "rate_limit_exceeded"]);
        assert.ok(limited.headers.get("retry-after") !== null);
      }, { REDIS_URL: redis.url });
      assert.equal(await a.stop(), 0, a.output());
    } finally {
      await a.stop();
      await redis.stop();
    }
  });

  it("every example type-checks (one tsc run; vendored.ts against the keel.d.ts of its build)", async () => {
    assert.equal(await vendoredBuild, null);
    const files = EXAMPLES.filter((f) => f !== "vendored.ts").map((f) => join(examples, f));
    writeFileSync(join(work, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(join(work, "tsconfig.json"), JSON.stringify({ extends: join(examples, "tsconfig.json"), files: [...files, "vendored.ts"], include: [] }));
    const tsc = await run([join(root, "node_modules/typescript/bin/tsc"), "-p", join(work, "tsconfig.json"), "--noEmit", "--pretty", "false"], work);
    assert.equal(tsc.code, 0, tsc.output);
  });

  it("vendored.ts runs on the single file built with its --features", async () => {
    assert.equal(await vendoredBuild, null);
    await withExample("vendored.ts", async ({ url }) => {
      const res = await getJson(`${url}/`, { headers: { "x-request-id": "req-42" } });
      assert.deepEqual([res.status, res.body], [200, { vendored: true }]);
      assert.equal(res.headers.get("x-request-id"), "req-42");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    }, {}, work);
  });
});
