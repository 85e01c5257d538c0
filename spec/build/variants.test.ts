// Build-time features, proven from outside the repo: `--features kernel`, a mid-size set and
// `all` are each built into a scratch folder, vendored (keel.js + keel.d.ts) into a strict
// NodeNext TypeScript consumer that must typecheck (with @ts-expect-error on every name a left-out
// feature would bring) and run with plain node, and every left-out feature is absent from both
// files: its exports, and its code (esbuild's per-module markers, and distinctive text such as
// the docs page or the TOON encoder).
import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { STRICT_CONSUMER_OPTIONS } from "../support/strict-consumer.js";
import { buildScript, bundledFiles, entryExports, explain, exportList, root, run, tscBin, type RunResult } from "./build-support.js";

interface Feature {
  name: string;
  entry: string;
  requires: string[];
}
interface FeaturesModule {
  FEATURES: Feature[];
  resolveFeatures(names: string[]): Feature[];
}
// A .mjs build script: loaded by URL so the strict project needs no declarations for it.
const { FEATURES, resolveFeatures } = (await import(pathToFileURL(join(root, "scripts/features.mjs")).href)) as FeaturesModule;

/** One value each feature alone brings: present exactly when the feature is in the build. */
const PROBES: Record<string, string> = {
  schema: "compileSchema",
  openapi: "docs",
  toon: "encodeToon",
  jose: "signJwt",
  jwt: "jwt",
  guards: "requireRole",
  "api-key": "apiKey",
  oauth2: "oauth2Client",
  cors: "cors",
  csrf: "csrf",
  "security-headers": "securityHeaders",
  "request-id": "requestId",
  "client-ip": "clientAddressResolver",
  stores: "MemoryStore",
  "rate-limit": "rateLimit",
  idempotency: "idempotency",
  cache: "responseCache",
  compression: "compression",
  timeout: "timeout",
  retry: "retry",
  "circuit-breaker": "circuitBreaker",
  jobs: "JobQueue",
  service: "production",
  "db-errors": "mapDatabaseError",
  tls: "https",
  sse: "sse",
  html: "markup",
};

/** Text only a feature's code contains (beyond its export names). */
const DISTINCTIVE: Record<string, RegExp> = {
  openapi: /<!doctype html>/i,
  toon: /function encodeToon\b/,
  jose: /function signJws\b/,
  jobs: /\bJobQueue = class\b|class JobQueue\b/,
  service: /function runService\b/,
  tls: /\ballowHTTP1\b/,
  sse: /text\/event-stream; charset=utf-8/,
  html: /about:invalid#unsafe/,
};

const SECRET = "a-test-secret-that-is-at-least-32-bytes-long";

// Every consumer: the kernel's typed surface, the probes, then the variant's own imports and code.
function consumerSource(included: Set<string>, imports: string, body: string): string {
  const absent = Object.entries(PROBES)
    .filter(([feature]) => !included.has(feature))
    .map(([feature, name]) => `// @ts-expect-error ${feature} is left out of this build\nvoid keel.${name};`)
    .join("\n");
  const present = Object.entries(PROBES)
    .filter(([feature]) => included.has(feature))
    .map(([feature, name]) => `const present_${feature.replace(/-/g, "_")}: unknown = keel.${name};\nvoid present_${feature.replace(/-/g, "_")};`)
    .join("\n");
  return `import * as keel from "./vendor/keel.js";
import { App, ApiError, json, path, route, silentLogger, t, type Static } from "./vendor/keel.js";
${imports}

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
const NewItem = t.object({ name: t.string({ length: { min: 1 } }), qty: t.u64() });
const itemShape: Equal<Static<typeof NewItem>, { name: string; qty: number }> = true;
// @ts-expect-error internal helpers are not part of the public surface
void keel.composeLayers;
${absent}
${present}

const runtime = keel as unknown as Record<string, unknown>;
const probes: Record<string, string> = {};
for (const [feature, name] of ${JSON.stringify(Object.entries(PROBES))} as Array<[string, string]>) probes[feature] = typeof runtime[name];

const results: Record<string, unknown> = {};
const app = new App({ logger: silentLogger }).routes(
  route.put("/items/{id}", [path("id", t.u64()), json(NewItem)], (id, item) => {
    const idIsNumber: number = id;
    // @ts-expect-error a u64 path parameter is a number, not a string
    const idIsString: string = id;
    void idIsString;
    return { id: idIsNumber, name: item.name.toUpperCase(), qty: item.qty };
  }),
  route.get("/forbidden", [], () => {
    throw ApiError.forbidden("not this one");
  }),
);
const put = await app.inject({ method: "PUT", url: "/items/7", body: { name: "bolt", qty: 3 } });
results["put"] = [put.status, put.json()];
results["badPath"] = (await app.inject({ method: "PUT", url: "/items/x", body: { name: "bolt", qty: 3 } })).status;
results["forbidden"] = [(await app.inject({ url: "/forbidden" })).status];
${body}
process.stdout.write(JSON.stringify({ itemShape, probes, results }) + "\\n");
`;
}

// openapi + jwt + cors + rate-limit + toon, working together in one app.
const MID_IMPORTS = `import { authUser, BEARER_SECURITY_SCHEME, cors, docs, encodeToon, jwt, negotiated, negotiation, rateLimit, signJwt, type JwtPayload, type RateLimitOptions } from "./vendor/keel.js";`;
const MID_BODY = `
const SECRET = ${JSON.stringify(SECRET)};
const limits: RateLimitOptions = { capacity: 1, refillPerSecond: 0.001 };
const mid = new App({ logger: silentLogger })
  .layer(cors({ origin: ["https://app.example"] }))
  .layer(negotiation())
  .routes(
    route.get("/me", { layers: [jwt({ algorithms: ["HS256"], key: SECRET })] }, [authUser()], (user: JwtPayload) => ({ sub: user.sub ?? null })),
    route.get("/limited", { layers: [rateLimit(limits)] }, [], () => "ok"),
    route.get("/list", { config: { negotiated: true } }, [], () => negotiated({ users: [{ id: 1, name: "a" }, { id: 2, name: "b" }] })),
  )
  .register(docs("/docs", { securitySchemes: { bearerAuth: BEARER_SECURITY_SCHEME } }));
const token = signJwt({}, { algorithm: "HS256", key: SECRET, subject: "u1", expiresIn: 300 });
const me = await mid.inject({ url: "/me", headers: { authorization: "Bearer " + token } });
results["me"] = [me.status, me.json()];
results["meAnonymous"] = (await mid.inject({ url: "/me" })).status;
results["limited"] = [(await mid.inject({ url: "/limited" })).status, (await mid.inject({ url: "/limited" })).status];
const preflight = await mid.inject({ method: "OPTIONS", url: "/me", headers: { origin: "https://app.example", "access-control-request-method": "GET" } });
results["preflight"] = [preflight.status, preflight.headers["access-control-allow-origin"] ?? null];
const list = await mid.inject({ url: "/list", headers: { accept: "application/toon" } });
results["toon"] = [list.status, String(list.headers["content-type"]), list.body];
results["encodeToon"] = encodeToon({ a: 1 });
const doc = await mid.inject({ url: "/docs/openapi.json" });
const docBody = doc.json<{ openapi: string; paths: Record<string, unknown> }>();
results["openapi"] = [doc.status, docBody.openapi, Object.keys(docBody.paths).sort()];
`;

// all: the mid-size app plus features the mid build lacks.
const ALL_IMPORTS = `${MID_IMPORTS}
import { compileSchema, mapDatabaseError, MemoryJobStore, production, requireRole } from "./vendor/keel.js";`;
const ALL_BODY = `${MID_BODY}
const unique = Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505", severity: "ERROR" });
const extra = new App({ logger: silentLogger }).mapErrors(mapDatabaseError).routes(
  route.post("/users", [], () => Promise.reject(unique)),
  route.get("/admin", { layers: [jwt({ algorithms: ["HS256"], key: SECRET })] }, [requireRole("admin")], () => "ok"),
);
results["dbError"] = (await extra.inject({ method: "POST", url: "/users" })).status;
results["guard"] = (await extra.inject({ url: "/admin", headers: { authorization: "Bearer " + token } })).status;
results["compileSchema"] = compileSchema(NewItem).validate({ name: "", qty: 1 })?.length ?? 0;
results["more"] = [typeof MemoryJobStore, typeof production];
`;

interface Variant {
  name: string;
  features: string;
  minify?: boolean;
  imports: string;
  body: string;
}
const VARIANTS: Variant[] = [
  { name: "kernel", features: "kernel", imports: "", body: "" },
  { name: "mid", features: "openapi,jwt,cors,rate-limit,toon", imports: MID_IMPORTS, body: MID_BODY },
  { name: "all", features: "all", imports: ALL_IMPORTS, body: ALL_BODY },
  // --minify changes only how keel.js is written: same exports, same behaviour.
  { name: "kernel-minified", features: "kernel", minify: true, imports: "", body: "" },
];

interface Output {
  itemShape: boolean;
  probes: Record<string, string>;
  results: Record<string, unknown>;
}

describe("build-time features: kernel alone, a mid-size set, all", () => {
  const scratch = mkdtempSync(join(tmpdir(), "keel-variants-"));
  const builds = new Map<string, RunResult>();
  let sizes: RunResult | undefined;
  after(() => rmSync(scratch, { recursive: true, force: true }));

  before(async () => {
    assert.ok(relative(root, scratch).startsWith(".."), "scratch folder must be outside the repo");
    // The project typecheck is npm test's job; these builds prove the bundles.
    await Promise.all([
      run([join(root, "scripts/sizes.mjs"), "--why"], root, 120_000).then((r) => (sizes = r)),
      ...VARIANTS.map(async (v) => {
        const args = [buildScript, "--no-typecheck", "--features", v.features, ...(v.minify === true ? ["--minify"] : []), "--outdir", join(scratch, v.name, "dist")];
        builds.set(v.name, await run(args, root, 120_000));
      }),
    ]);
  });

  const file = (variant: string, name: string): string => readFileSync(join(scratch, variant, "dist", name), "utf8");

  for (const variant of VARIANTS) {
    const included = new Set(resolveFeatures(variant.features.split(",")).map((f) => f.name));
    const left = FEATURES.filter((f) => !included.has(f.name));

    describe(`--features ${variant.features}${variant.minify === true ? " --minify" : ""}`, () => {
      it("builds, printing the size and the features included", () => {
        const built = builds.get(variant.name);
        assert.ok(built !== undefined);
        assert.equal(built.status, 0, explain(built));
        assert.match(built.stdout, /keel\.js\s+[\d.]+ KiB raw, [\d.]+ KiB gzipped \(gzip -9; \d+ \/ \d+ bytes/);
        const listed = /^features: (.*?)( \(minified\))?$/m.exec(built.stdout);
        assert.deepEqual(listed?.[1]?.split(", "), [...included]);
        assert.equal(listed?.[2] !== undefined, variant.minify === true);
        assert.match(file(variant.name, "keel.js"), new RegExp(`features: ${[...included].join(", ")}\\n`), "the banner names the features");
        assert.ok(existsSync(join(scratch, variant.name, "dist/server.js")), "the sample service is built whatever the features");
        if (variant.minify === true) {
          const readable = file("kernel", "keel.js");
          const minified = file(variant.name, "keel.js");
          assert.ok(minified.length < readable.length * 0.7, `minified ${minified.length} vs ${readable.length} bytes`);
          assert.deepEqual(exportList(minified).sort(), exportList(readable).sort());
          assert.equal(file(variant.name, "keel.d.ts"), file("kernel", "keel.d.ts"));
        }
      });

      it("left-out features are absent: no exports in keel.js or keel.d.ts, no code", async () => {
        const js = file(variant.name, "keel.js");
        const dts = file(variant.name, "keel.d.ts");
        const jsExports = new Set(exportList(js));
        const dtsExports = new Set(exportList(dts));
        const presentNames = new Set<string>();
        for (const f of FEATURES.filter((g) => included.has(g.name))) for (const n of await entryExports(f.entry)) presentNames.add(n);
        assert.deepEqual(new Set(jsExports), presentNames, "keel.js exports exactly the included entries' values");
        for (const f of left) {
          for (const name of await entryExports(f.entry)) {
            if (presentNames.has(name)) continue;
            assert.ok(!jsExports.has(name), `keel.js exports ${name} of left-out ${f.name}`);
            assert.ok(!dtsExports.has(name), `keel.d.ts exports ${name} of left-out ${f.name}`);
          }
          const folder = dirname(f.entry) + "/";
          const kernelFolder = bundledFiles(file("kernel", "keel.js")).some((m) => m.startsWith(folder));
          if (!kernelFolder) assert.ok(!bundledFiles(js).some((m) => m.startsWith(folder)), `keel.js holds code of left-out ${f.name}`);
          const marker = DISTINCTIVE[f.name];
          if (marker !== undefined) assert.doesNotMatch(js, marker, `keel.js holds ${f.name}'s code`);
        }
        for (const name of included) {
          const marker = DISTINCTIVE[name];
          if (marker !== undefined) assert.match(js, marker, `keel.js holds ${name}'s code`);
        }
      });

      it("vendored into a strict NodeNext consumer: typechecks (rejecting left-out names) and runs with plain node", async () => {
        const consumer = join(scratch, variant.name, "consumer");
        mkdirSync(join(consumer, "vendor"), { recursive: true });
        copyFileSync(join(scratch, variant.name, "dist/keel.js"), join(consumer, "vendor/keel.js"));
        copyFileSync(join(scratch, variant.name, "dist/keel.d.ts"), join(consumer, "vendor/keel.d.ts"));
        writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module", private: true }));
        const tsconfig = { compilerOptions: { ...STRICT_CONSUMER_OPTIONS, noEmitOnError: true }, files: ["main.ts"] };
        writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
        writeFileSync(join(consumer, "main.ts"), consumerSource(included, variant.imports, variant.body));
        const checked = await run([tscBin, "-p", "tsconfig.json"], consumer);
        assert.equal(checked.status, 0, explain(checked));

        const ran = await run(["main.js"], consumer, 15_000);
        assert.equal(ran.status, 0, explain(ran));
        const out = JSON.parse(ran.stdout) as Output;
        assert.equal(out.itemShape, true);
        for (const [feature, type] of Object.entries(out.probes)) {
          assert.equal(type !== "undefined", included.has(feature), `${feature}'s ${PROBES[feature]} at run time: ${type}`);
        }
        assert.deepEqual(out.results["put"], [200, { id: 7, name: "BOLT", qty: 3 }]);
        assert.equal(out.results["badPath"], 422);
        assert.deepEqual(out.results["forbidden"], [403]);
        if (variant.features === "kernel") return;
        assert.deepEqual(out.results["me"], [200, { sub: "u1" }]);
        assert.equal(out.results["meAnonymous"], 401);
        assert.deepEqual(out.results["limited"], [200, 429]);
        assert.deepEqual(out.results["preflight"], [204, "https://app.example"]);
        const [toonStatus, toonType, toonBody] = out.results["toon"] as [number, string, string];
        assert.equal(toonStatus, 200);
        assert.match(toonType, /^application\/toon/);
        assert.match(toonBody, /^users\[2\]\{id,name\}:\n {2}1,a\n {2}2,b/);
        assert.equal(out.results["encodeToon"], "a: 1");
        const [docStatus, version, paths] = out.results["openapi"] as [number, string, string[]];
        assert.equal(docStatus, 200);
        assert.match(version, /^3\.1\./);
        assert.ok(paths.includes("/me") && paths.includes("/list"), paths.join());
        if (variant.name === "mid") return;
        assert.equal(out.results["dbError"], 409);
        assert.equal(out.results["guard"], 403);
        assert.equal(out.results["compileSchema"], 1);
        assert.deepEqual(out.results["more"], ["function", "function"]);
      });
    });
  }

  it("npm run sizes measures the very bytes the build writes: kernel, all, and a row per feature", () => {
    assert.ok(sizes !== undefined);
    assert.equal(sizes.status, 0, explain(sizes));
    const row = (name: string): string[] | undefined =>
      sizes?.stdout
        .split("\n")
        .find((line) => line.startsWith(`| ${name} |`))
        ?.split("|")
        .map((cell) => cell.trim());
    const bytes = (cell: string | undefined): number => Number(String(cell).split(" ")[0]?.replace(/,/g, ""));
    for (const variant of ["kernel", "all"]) {
      const text = file(variant, "keel.js");
      const cells = row(`**${variant}**`);
      assert.equal(bytes(cells?.[2]), Buffer.byteLength(text), `${variant} raw bytes`);
    }
    for (const f of FEATURES.filter((g) => g.name !== "kernel")) {
      const cells = row(`+ ${f.name}`);
      assert.ok(cells !== undefined, `a row for ${f.name}`);
      assert.ok(bytes(cells[4]?.replace("+", "")) > 0 && bytes(cells[5]?.replace("+", "")) > 0, `${f.name} adds bytes`);
    }
    assert.equal(row("+ jwt")?.[6], "jose, guards", "what a feature brings along");
    assert.match(sizes.stdout, /\| lib\/schema \| [\d,]+ \|/, "--why lists the kernel's heaviest folders");
  });
});
