// `node dist/server.js --help` names every environment variable the service reads. The reads are
// found in the sources, not listed by hand: every file reachable by import from the sample's
// executable (lib/sample/main.ts) and from keel/service is searched for process.env reads,
// settings tables (`env: "NAME"`) and readers keyed by a variable (`env[name]`), and each name
// found must appear in the help the sample prints (here lib/sample/main.ts through tsx).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRIES = ["lib/sample/main.ts", "lib/service/index.ts"];

/** Every lib/ file reachable from the entries through relative imports (static and dynamic). */
function reachable(): string[] {
  const seen = new Set<string>();
  const queue = ENTRIES.map((e) => join(ROOT, e));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const spec = m[1]!;
      const base = resolve(dirname(file), spec.replace(/\.js$/, ""));
      const target = [`${base}.ts`, join(base, "index.ts")].find((f) => existsSync(f));
      assert.ok(target, `${relative(ROOT, file)} imports ${spec}, which resolves to no .ts file`);
      queue.push(target);
    }
  }
  return [...seen].sort();
}

const NAME = "[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z]{2,}";

/** The environment variable names a source file reads, and how each was found. */
function environmentReads(source: string): Map<string, string> {
  const code = source.replace(/^\s*(?:\/\/|\*|\/\*\*).*$/gm, ""); // comments mention variables they do not read
  const found = new Map<string, string>();
  const note = (name: string, how: string) => void (found.has(name) || found.set(name, how));
  for (const m of code.matchAll(new RegExp(`process\\.env\\.(${NAME})\\b`, "g"))) note(m[1]!, "process.env.NAME");
  for (const m of code.matchAll(new RegExp(`process\\.env\\[\\s*"(${NAME})"\\s*\\]`, "g"))) note(m[1]!, 'process.env["NAME"]');
  for (const m of code.matchAll(new RegExp(`\\benv:\\s*"(${NAME})"`, "g"))) note(m[1]!, 'a setting (env: "NAME")');
  // A reader keyed by a computed name (env[name], process.env[name], read(env, name)): every literal
  // in the file that looks like a variable name is one it may read.
  if (/\benv\[\s*[a-z][\w.]*\s*\]/.test(code) || /\(\s*env\s*,\s*"/.test(code)) {
    for (const m of code.matchAll(/"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"/g)) note(m[1]!, "a name read through a computed key");
  }
  return found;
}

describe("--help and the environment", () => {
  it("lists every environment variable read by code reachable from the sample and keel/service", () => {
    const reads = new Map<string, string>();
    const files = reachable();
    assert.ok(files.some((f) => f.endsWith("lib/otel/env-config.ts")), "the OTLP configuration is reachable from the sample");
    for (const file of files) {
      for (const [name, how] of environmentReads(readFileSync(file, "utf8"))) if (!reads.has(name)) reads.set(name, `${relative(ROOT, file)}: ${how}`);
    }
    // The search itself works: it finds a read of each kind.
    for (const name of ["KEEL_ENV", "PORT", "KEEL_JWT_SECRET", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_BSP_MAX_QUEUE_SIZE", "KEEL_REPLAY_FILE"]) {
      assert.ok(reads.has(name), `the search finds ${name} (found: ${[...reads.keys()].join(", ")})`);
    }

    const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "lib/sample/main.ts"), "--help"], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "test", KEEL_ENV: "development" },
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const listed = new Set(run.stdout.match(/\b[A-Z][A-Z0-9_]+\b/g) ?? []);
    const missing = [...reads].filter(([name]) => !listed.has(name)).map(([name, where]) => `${name} (${where})`);
    assert.deepEqual(missing, [], `--help does not list:\n${missing.join("\n")}`);
  });
});
