// keel routes, openapi, client, doctor and the usage answers, each run as a process: the built
// dist/cli.js against the built sample (dist/sample-app.js), as `npx keel` runs after a build.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KNOWN_KEEL_VARIABLES, nodeSatisfies, schemaType } from "../../lib/devtool/index.js";
import { STRICT_CONSUMER_OPTIONS } from "../support/strict-consumer.js";
import { buildTool, cleanEnv, explain, root, runNode, tscBin } from "./cli-support.js";

let tool: Awaited<ReturnType<typeof buildTool>>;
before(async () => {
  tool = await buildTool();
});
after(() => tool?.cleanup());

const keel = (args: readonly string[], env = cleanEnv()) => runNode([tool.cli, ...args], tool.dir, env);

describe("keel usage", () => {
  it("--help, no command and an unknown command print the usage on stderr and exit 2", async () => {
    for (const args of [["--help"], [], ["frobnicate"], ["routes", "--help"]]) {
      const r = await keel(args);
      assert.equal(r.status, 2, `${args.join(" ")}: ${explain(r)}`);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, /usage: keel <command>/);
    }
    assert.match((await keel(["frobnicate"])).stderr, /unknown command frobnicate/);
  });

  it("an unknown option is a usage error (exit 2), not ignored", async () => {
    const r = await keel(["routes", "--ap", "sample-app.js"]);
    assert.equal(r.status, 2, explain(r));
    assert.match(r.stderr, /unknown option --ap/);
  });
});

describe("keel routes", () => {
  it("prints method, path, layers and declared responses of every route of the sample", async () => {
    const r = await keel(["routes", "--app", "sample-app.js"]);
    assert.equal(r.status, 0, explain(r));
    const lines = r.stdout.split("\n");
    assert.match(lines[0] ?? "", /^global layers \(every route, outermost first\): .*securityHeadersLayer/);
    assert.match(lines[1] ?? "", /^METHOD\s+PATH\s+LAYERS\s+RESPONSES$/);
    const row = (method: string, path: string) => lines.find((l) => new RegExp(`^${method}\\s+${path.replace(/[{}]/g, "\\$&")}\\s`).test(l));
    assert.match(row("GET", "/users/{id}") ?? "", /\s-\s+200, 400, 404$/);
    assert.match(row("POST", "/users") ?? "", /rateLimitLayer, idempotencyLayer\s+201, 409$/);
    assert.match(row("GET", "/api/v1/me") ?? "", /jwtLayer\s+200$/);
    assert.match(row("WS", "/api/v1/ws/chat") ?? "", /\(hidden\)\s+jwtLayer/);
  });

  it("says what is wrong with a module that is not an app (exit 2)", async () => {
    writeFileSync(join(tool.dir, "not-app.mjs"), "export const app = 42;\n");
    const r = await keel(["routes", "--app", "not-app.mjs"]);
    assert.equal(r.status, 2, explain(r));
    assert.match(r.stderr, /export app is not an App/);
    const none = await keel(["routes"]);
    assert.equal(none.status, 2, explain(none));
    assert.match(none.stderr, /no app\.js here/);
  });
});

describe("keel openapi and keel client", () => {
  it("writes the sample's own document (its title and paths) with --out", async () => {
    const r = await keel(["openapi", "--app", "sample-app.js", "--out", "out/openapi.json"]);
    assert.equal(r.status, 0, explain(r));
    const doc = JSON.parse(readFileSync(join(tool.dir, "out/openapi.json"), "utf8")) as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.title, "keel sample service");
    assert.ok("/users/{id}" in doc.paths && "/api/v1/users" in doc.paths);
    const stdout = await keel(["openapi", "--app", "sample-app.js"]);
    assert.deepEqual(JSON.parse(stdout.stdout), doc, "without --out the same document goes to stdout");
  });

  it("writes a client that type-checks strictly, rejects wrong calls, and sends what the operation says", async () => {
    const fromApp = await keel(["client", "--app", "sample-app.js", "--out", "client/api.ts"]);
    assert.equal(fromApp.status, 0, explain(fromApp));
    await keel(["openapi", "--app", "sample-app.js", "--out", "client/openapi.json"]);
    const fromDoc = await keel(["client", "--openapi", "client/openapi.json", "--out", "client/api-from-doc.ts"]);
    assert.equal(fromDoc.status, 0, explain(fromDoc));
    const dir = join(tool.dir, "client");
    assert.equal(readFileSync(join(dir, "api-from-doc.ts"), "utf8"), readFileSync(join(dir, "api.ts"), "utf8"));
    assert.equal(readFileSync(join(dir, "api.ts"), "utf8").match(/^import /m), null, "the client imports nothing");

    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      join(dir, "use.ts"),
      `import { createClient, type User } from "./api.js";
const sent: Array<{ url: string; method: string | undefined; body: unknown; type: string | null }> = [];
const api = createClient("http://api.test/", {
  fetch: async (url, init) => {
    sent.push({ url, method: init.method, body: init.body, type: new Headers(init.headers).get("content-type") });
    return new Response(JSON.stringify({ id: 7, email: "ada@example.com" }), { status: 201, headers: { "content-type": "application/json" } });
  },
});
const got = await api.getUsersById({ params: { id: 7 } });
if (got.ok && got.status === 200) {
  const user: User = got.body;
  const email: string = got.body.email;
  void user, email;
}
// Compiled, never called: each call must be a type error.
export async function typeErrors(): Promise<void> {
  // @ts-expect-error the path parameter is required
  await api.getUsersById({});
  // @ts-expect-error id is a number
  await api.getUsersById({ params: { id: true } });
  // @ts-expect-error the body must be a CreateUser
  await api.postUsers({ json: { email: "ada@example.com" } });
  // @ts-expect-error limit is a number
  await api.getApiV1Users({ query: { limit: "5" } });
}
const made = await api.postUsers({ json: { email: "ada@example.com", password: "correct horse" }, headers: { "idempotency-key": "k1" } });
await api.getApiV1Users({ query: { limit: 5 } });
await api.postEchoText({ text: "a b" });
process.stdout.write(JSON.stringify({ sent, made: { ok: made.ok, status: made.status, body: made.body } }));
`,
    );
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...STRICT_CONSUMER_OPTIONS, outDir: "js" }, files: ["api.ts", "use.ts"] }));
    const tsc = await runNode([tscBin, "-p", join(dir, "tsconfig.json")], dir);
    assert.equal(tsc.status, 0, explain(tsc));
    writeFileSync(join(dir, "js", "package.json"), JSON.stringify({ type: "module" }));
    const ran = await runNode([join(dir, "js", "use.js")], dir);
    assert.equal(ran.status, 0, explain(ran));
    const { sent, made } = JSON.parse(ran.stdout) as { sent: Array<{ url: string; method: string; body: unknown; type: string | null }>; made: unknown };
    assert.deepEqual(
      sent.map((s) => [s.method, s.url, s.type]),
      [
        ["GET", "http://api.test/users/7", null],
        ["POST", "http://api.test/users", "application/json"],
        ["GET", "http://api.test/api/v1/users?limit=5", null],
        ["POST", "http://api.test/echo-text", "text/plain; charset=utf-8"],
      ],
    );
    assert.equal(sent[1]?.body, JSON.stringify({ email: "ada@example.com", password: "correct horse" }));
    assert.deepEqual(made, { ok: true, status: 201, body: { id: 7, email: "ada@example.com" } });
  });

  it("client without --out is a usage error", async () => {
    const r = await keel(["client", "--app", "sample-app.js"]);
    assert.equal(r.status, 2, explain(r));
    assert.match(r.stderr, /needs --out/);
  });
});

describe("keel doctor", () => {
  // A Node line outside `engines` (Node 22 since CI left it) is a problem doctor reports (exit 1).
  const engines = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
  const supported = nodeSatisfies(process.version, engines) === true;

  it("prints the Node version and its support, what is built, and exits 0 with a clean environment", async () => {
    const r = await keel(["doctor"]);
    assert.equal(r.status, supported ? 0 : 1, explain(r));
    const version = process.version.replace(/\./g, "\\.");
    const expected = `^node\\s+${version} ${supported ? "supported" : "NOT supported"} \\(engines "${engines.replace(/[.|]/g, "\\$&")}"\\)$`;
    assert.match(r.stdout, new RegExp(expected, "m"));
    assert.match(r.stdout, /^built\s+.*keel\.js, cli\.js, sample-app\.js; not built: keel\.d\.ts, server\.js$/m);
    assert.match(r.stdout, /^features\s+kernel, plugin, schema, openapi/m);
    assert.match(r.stdout, /^config\s+no problems found$/m);
  });

  it("exits 1 naming each configuration problem: KEEL_ENV, PORT, a service variable, an unknown KEEL_*", async () => {
    const r = await keel(["doctor"], cleanEnv({ KEEL_ENV: "staging", PORT: "99999", SHUTDOWN_TIMEOUT_MS: "soon", KEEL_JWT_SECRETS: "x" }));
    assert.equal(r.status, 1, explain(r));
    const problems = r.stdout.split("\n").filter((l) => l.startsWith("problem"));
    assert.equal(problems.length, 4, r.stdout);
    assert.match(problems[0] ?? "", /KEEL_ENV="staging" is not one of development, dev, test, production, prod/);
    assert.match(problems[1] ?? "", /PORT="99999" is not a TCP port/);
    assert.match(problems[2] ?? "", /SHUTDOWN_TIMEOUT_MS/);
    assert.match(problems[3] ?? "", /KEEL_JWT_SECRETS is set but nothing in keel reads it/);
    const known = await keel(["doctor", "--known", "KEEL_JWT_SECRETS"], cleanEnv({ KEEL_JWT_SECRETS: "x", KEEL_ENV: "production", PORT: "8080" }));
    assert.equal(known.status, supported ? 0 : 1, explain(known));
    assert.match(known.stdout, /^config\s+no problems found$/m, "--known names a variable read outside keel");
  });

  it("reads engines ranges of keel's form, and says unknown for others", () => {
    assert.equal(nodeSatisfies("v22.3.0", "20.x || 22.x || 24.x || 26.x"), true);
    assert.equal(nodeSatisfies("v21.7.3", "20.x || 22.x || 24.x || 26.x"), false);
    assert.equal(nodeSatisfies("v18.20.0", ">=20"), false);
    assert.equal(nodeSatisfies("v26.0.0", ">=20"), true);
    assert.equal(nodeSatisfies("v22.0.0", "~22.1 - 23"), undefined);
  });

  it("knows every KEEL_* variable lib/ reads from the environment", () => {
    const names = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith(".ts")) {
          // A name in quotes that is not an error or warning code ({ code: "KEEL_..." }, code === "KEEL_...").
          for (const m of readFileSync(join(dir, e.name), "utf8").matchAll(/(code:\s*|code\s*===\s*)?"(KEEL_[A-Z0-9_]+)"/g)) if (m[1] === undefined) names.add(m[2] as string);
        }
      }
    };
    walk(join(root, "lib"));
    // Error codes spelt like variables (keel/postgres's pool errors), not read from the environment.
    const errorCodes = ["KEEL_POOL_TIMEOUT", "KEEL_POOL_QUEUE_FULL"];
    assert.deepEqual([...names].filter((n) => !KNOWN_KEEL_VARIABLES.includes(n) && !errorCodes.includes(n)), []);
  });
});

describe("keel client: schema types", () => {
  it("turns the JSON Schema forms of a document into TypeScript, widening what it cannot express", () => {
    assert.equal(schemaType({ type: ["string", "null"] }), "string | null");
    assert.equal(schemaType({ enum: ["a", "b", 1] }), '"a" | "b" | 1');
    assert.equal(schemaType({ const: "x" }), '"x"');
    assert.equal(schemaType({ oneOf: [{ $ref: "#/components/schemas/users.v1.User" }, { type: "integer" }] }), "users_v1_User | number");
    assert.equal(schemaType({ type: "array", items: { anyOf: [{ type: "string" }, { type: "boolean" }] } }), "(string | boolean)[]");
    assert.equal(schemaType({ type: "object", additionalProperties: { type: "number" } }), "Record<string, number>");
    assert.equal(schemaType({ type: "object", properties: { "a-b": { type: "string" } }, required: ["a-b"] }), '{\n  "a-b": string;\n}');
    assert.equal(schemaType({ type: "object", properties: { n: { type: "string" } }, additionalProperties: true }), "{\n  n?: string;\n  [key: string]: unknown;\n}");
    assert.equal(schemaType({ type: "string", pattern: "^a" }), "string");
    assert.equal(schemaType({ type: "array", items: { oneOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { type: "null" }] } }), "({\n  a: string;\n} | null)[]");
    assert.equal(schemaType({ not: { type: "string" } }), "unknown");
    assert.equal(schemaType(false), "never");
    // Nesting deeper than the bound is widened, not followed (no stack overflow on a hostile document).
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 10_000; i++) deep = { type: "array", items: deep };
    assert.match(schemaType(deep), /^unknown(\[\])+$/);
  });
});
