// The package entry points (package.json `exports`), proven the way an npm user meets them: the
// build's dist/ and package.json are copied into a scratch consumer's node_modules/keel, and a
// strict NodeNext consumer imports "keel", "keel/openapi", "keel/middleware" and
// "keel/db-errors", typechecks (internal paths refused) and runs with plain node. The entries
// share one copy of the kernel: an ApiError made by one entry is an ApiError of another.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { STRICT_CONSUMER_OPTIONS } from "../support/strict-consumer.js";
import { buildScript, explain, root, run, tscBin, type RunResult } from "./build-support.js";

const CONSUMER_TS = `import { ApiError, App, route, silentLogger, t } from "keel";
import * as kernel from "keel";
import { BEARER_SECURITY_SCHEME } from "keel/auth";
import { docs, openApiDocument } from "keel/openapi";
import { MemoryStore, rateLimit, type RateLimitOptions, type Store } from "keel/middleware";
import { mapDatabaseError } from "keel/db-errors";
import { compileSchema } from "keel/schema";

// @ts-expect-error the kernel entry carries no feature
void kernel.docs;
// @ts-expect-error internal modules are not entry points
type Internal = typeof import("keel/util/env");
// @ts-expect-error nor are the built files themselves
type Chunk = typeof import("keel/dist/pkg/index.js");

const limits: RateLimitOptions = { capacity: 1, refillPerSecond: 0.001 };
const store: Store<number> = new MemoryStore<number>();
const app = new App({ logger: silentLogger })
  .routes(route.get("/limited", { layers: [rateLimit(limits)] }, [], () => "ok"))
  .register(docs("/docs", { securitySchemes: { bearerAuth: BEARER_SECURITY_SCHEME } }));
const first = await app.inject({ url: "/limited" });
const second = await app.inject({ url: "/limited" });
const doc = await app.inject({ url: "/docs/openapi.json" });
const mapped = mapDatabaseError(Object.assign(new Error("duplicate key"), { code: "23505", severity: "ERROR" }));
const internal = await import("keel/util/env" as string).then(
  () => "loaded",
  (err: NodeJS.ErrnoException) => err.code,
);
process.stdout.write(
  JSON.stringify({
    limited: [first.status, second.status, second.json<{ error: { type: string } }>().error.type],
    docs: doc.status,
    paths: Object.keys(openApiDocument(app).paths),
    mappedIsApiError: mapped instanceof ApiError,
    mappedStatus: mapped?.status,
    schemaErrors: compileSchema(t.string()).validate(1)?.length,
    store: typeof store.get,
    internal,
  }) + "\\n",
);
export type { Internal, Chunk };
`;

describe("package entry points (package.json exports) in a strict NodeNext consumer", () => {
  const scratch = mkdtempSync(join(tmpdir(), "keel-package-"));
  const consumer = join(scratch, "consumer");
  const installed = join(consumer, "node_modules", "keel");
  let built: RunResult | undefined;
  after(() => rmSync(scratch, { recursive: true, force: true }));

  before(async () => {
    // The package files do not depend on --features; the kernel build is the quickest.
    built = await run([buildScript, "--no-typecheck", "--features", "kernel", "--outdir", join(scratch, "dist")], root, 120_000);
    if (built.status !== 0) return;
    mkdirSync(installed, { recursive: true });
    cpSync(join(root, "package.json"), join(installed, "package.json"));
    cpSync(join(scratch, "dist"), join(installed, "dist"), { recursive: true });
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
    const tsconfig = { compilerOptions: { ...STRICT_CONSUMER_OPTIONS, noEmitOnError: true }, files: ["main.ts"] };
    writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    writeFileSync(join(consumer, "main.ts"), CONSUMER_TS);
  });

  it("npm run build writes every entry's code under dist/pkg and its types under dist/types", () => {
    assert.ok(built !== undefined);
    assert.equal(built.status, 0, explain(built));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, { types: string; default: string }> };
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      assert.ok(existsSync(join(scratch, target.default.replace(/^\.\//, ""))), `${subpath}: ${target.default}`);
      assert.ok(existsSync(join(scratch, target.types.replace(/^\.\//, ""))), `${subpath}: ${target.types}`);
    }
  });

  it("the kernel exists once: one ApiError and one App class across all entries and chunks", () => {
    const texts: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith(".js")) texts.push(readFileSync(join(dir, e.name), "utf8"));
      }
    };
    walk(join(scratch, "dist/pkg"));
    const count = (re: RegExp): number => texts.reduce((n, text) => n + (text.match(re)?.length ?? 0), 0);
    assert.equal(count(/\bvar ApiError = class\b|\bclass ApiError\b/g), 1);
    assert.equal(count(/\bvar App = class\b|\bclass App\b/g), 1);
  });

  it("typechecks against the entries' types (internal paths refused) and runs with plain node", async () => {
    assert.ok(existsSync(join(consumer, "main.ts")), "set-up failed: see the build test");
    const checked = await run([tscBin, "-p", "tsconfig.json"], consumer);
    assert.equal(checked.status, 0, explain(checked));
    const ran = await run(["main.js"], consumer, 15_000);
    assert.equal(ran.status, 0, explain(ran));
    const out = JSON.parse(ran.stdout) as Record<string, unknown>;
    // A 429 (not a 500): the kernel's error writer recognises the middleware entry's ApiError.
    assert.deepEqual(out["limited"], [200, 429, "rate_limit_exceeded"]);
    assert.equal(out["docs"], 200);
    assert.deepEqual(out["paths"], ["/limited"]);
    assert.equal(out["mappedIsApiError"], true, "keel/db-errors makes the ApiError of keel");
    assert.equal(out["mappedStatus"], 409);
    assert.equal(out["schemaErrors"], 1);
    assert.equal(out["store"], "function");
    assert.equal(out["internal"], "ERR_PACKAGE_PATH_NOT_EXPORTED");
  });
});
