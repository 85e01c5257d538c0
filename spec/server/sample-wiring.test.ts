// How the sample is put together, as a user copying it relies on: each app owns its state,
// creating one starts nothing, its settings go through the service configuration (validated,
// listed in --help), and production refuses to run on the development secret.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { silentLogger } from "../../lib/index.js";
import { parseServiceConfig, serviceHelp } from "../../lib/service/index.js";
import { createSampleApp, createSampleJobQueue, SAMPLE_SETTINGS, UserStore } from "../../lib/sample/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../../lib/sample/main.ts", import.meta.url));

/** Run the sample's main with args/env; it must end by itself (help, bad usage, failed start). */
function runMain(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", KEEL_JWT_SECRET: "", KEEL_CORS_ORIGINS: "", KEEL_ENV: "", PORT: "0", ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const createUser = (email: string) => ({
  method: "POST",
  url: "/users",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ email, password: "correct horse" }),
});

describe("sample wiring", () => {
  it("two apps do not share users: a user created in one is not in the other", async () => {
    const a = createSampleApp({ logger: silentLogger, env: "development" });
    const b = createSampleApp({ logger: silentLogger, env: "development" });
    const made = await a.inject(createUser("zed@example.com"));
    assert.equal(made.status, 201);
    const id = made.json<{ id: number }>().id;
    assert.equal((await a.inject({ url: `/users/${id}` })).status, 200);
    assert.equal((await b.inject({ url: `/users/${id}` })).status, 404);
  });

  it("a user store can be passed in and is the one the routes use", async () => {
    const users = new UserStore(["only@example.com"]);
    const app = createSampleApp({ logger: silentLogger, env: "development", users });
    assert.deepEqual((await app.inject({ url: "/users/1" })).json(), { id: 1, email: "only@example.com" });
    assert.equal((await app.inject({ url: "/users/2" })).status, 404);
    await app.inject(createUser("second@example.com"));
    assert.equal(users.get(2)?.email, "second@example.com");
  });

  it("creating the app starts no job queue; listening starts it and shutdown drains it", async () => {
    const jobs = createSampleJobQueue({ logger: silentLogger });
    const app = createSampleApp({ logger: silentLogger, env: "development", jobs });
    assert.equal((await jobs.stats()).phase, "idle");
    const server = await app.listen({ port: 0 });
    // start() opens the store first: give it its turn.
    for (let i = 0; i < 50 && (await jobs.stats()).phase !== "running"; i++) await new Promise((r) => setImmediate(r));
    assert.equal((await jobs.stats()).phase, "running");
    await server.close();
    assert.equal((await jobs.stats()).phase, "stopped");
  });

  it("in production a missing JWT secret is refused instead of using the development one", () => {
    assert.throws(() => createSampleApp({ logger: silentLogger, env: "production" }), /KEEL_JWT_SECRET must be set in production/);
    assert.doesNotThrow(() => createSampleApp({ logger: silentLogger, env: "production", jwtSecret: "x".repeat(32) }));
  });

  it("its settings are parsed by the service configuration: secret length and origins are validated", () => {
    const ok = parseServiceConfig([], { KEEL_JWT_SECRET: "s".repeat(32), KEEL_CORS_ORIGINS: "https://a.example, http://127.0.0.1:5173" }, SAMPLE_SETTINGS);
    assert.equal(typeof ok, "object");
    if (typeof ok !== "object") return;
    assert.equal(ok.settings.jwtSecret, "s".repeat(32));
    assert.deepEqual(ok.settings.corsOrigins, ["https://a.example", "http://127.0.0.1:5173"]);
    const unset = parseServiceConfig([], {}, SAMPLE_SETTINGS);
    assert.ok(typeof unset === "object" && unset.settings.jwtSecret === undefined && unset.settings.corsOrigins === undefined);
    assert.throws(() => parseServiceConfig([], { KEEL_JWT_SECRET: "short" }, SAMPLE_SETTINGS), /KEEL_JWT_SECRET: expected a secret of at least 32 bytes/);
    for (const bad of ["*", "null", "https://a.example/path", "a.example"]) {
      assert.throws(() => parseServiceConfig([], { KEEL_CORS_ORIGINS: bad }, SAMPLE_SETTINGS), /KEEL_CORS_ORIGINS: expected comma-separated origins/, bad);
    }
    assert.throws(() => parseServiceConfig(["--cors-origins", "*"], {}, SAMPLE_SETTINGS), /--cors-origins/);
  });

  it("--help lists every variable the sample reads, its own settings included", () => {
    const help = serviceHelp("node dist/server.js", "The sample.", SAMPLE_SETTINGS);
    for (const name of ["HOST", "PORT", "KEEL_ENV", "WORKERS", "LOG_LEVEL", "SHUTDOWN_TIMEOUT_MS", "TRUST_REQUEST_ID", "KEEL_JWT_SECRET", "KEEL_CORS_ORIGINS"]) {
      assert.match(help, new RegExp(`env ${name}\\b`), name);
    }
  });

  it("as a process: --help exits 0 listing the sample's settings; a bad setting exits 2 naming it; a typo in KEEL_ENV exits 2", () => {
    const help = runMain(["--help"]);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /--jwt-secret SECRET/);
    assert.match(help.stdout, /env KEEL_CORS_ORIGINS/);
    const bad = runMain([], { KEEL_CORS_ORIGINS: "*" });
    assert.equal(bad.status, 2, bad.stderr + bad.stdout);
    assert.match(bad.stderr, /KEEL_CORS_ORIGINS: expected comma-separated origins/);
    const typo = runMain([], { KEEL_ENV: "producton" });
    assert.equal(typo.status, 2, typo.stderr + typo.stdout);
    assert.match(typo.stderr, /KEEL_ENV: expected one of development, dev, test, production, prod/);
  });

  it("a clash between an app setting and a built-in option is refused", () => {
    assert.throws(() => parseServiceConfig([], {}, { port: { flag: "listen-port", value: "N", description: "x", parse: Number } }), /clashes with a built-in option/);
    assert.throws(() => parseServiceConfig([], {}, { p: { flag: "p", env: "PORT", value: "N", description: "x", parse: Number } }), /clashes/);
  });
});
