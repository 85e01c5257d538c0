// docs/reference/ is generated from the code (scripts/docs-reference.mjs): this test regenerates
// it into a temporary directory and fails when the committed pages differ. To update them:
//   npm run docs:reference
// It also checks that the generator cannot miss a limit or a variable: every exported
// DEFAULT_/MAX_/LIMIT constant of lib/ is listed (or excused), and every variable lib/ reads by
// name is on the configuration page.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
// @ts-expect-error: a plain .mjs script without declarations
import * as reference from "../../scripts/docs-reference.mjs";

interface LimitArea {
  area: string;
  page: string;
  rows: [path: string, name: string, key: string | null, unit: string, what: string][];
}
const { writeReference, limitLikeConstants, LIMITS, NOT_LIMITS, REFERENCE_DIR, formatBytes, formatMs, docSummary } = reference as {
  writeReference(dir: string): Promise<string[]>;
  limitLikeConstants(): string[];
  LIMITS: LimitArea[];
  NOT_LIMITS: Record<string, string>;
  REFERENCE_DIR: string;
  formatBytes(n: number): string;
  formatMs(n: number): string;
  docSummary(leading: string): string;
};

const root = fileURLToPath(new URL("../..", import.meta.url));
const UPDATE = "run `npm run docs:reference` and commit docs/reference/";

/** Files under `dir`, as paths relative to it with forward slashes. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out;
}

/** "path: line N: committed `a`, generated `b`" for the first line that differs. */
function firstDifference(path: string, committed: string, generated: string): string {
  const a = committed.split("\n");
  const b = generated.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `${path}:${i + 1}: committed ${JSON.stringify(a[i]?.slice(0, 120) ?? "(end of file)")}, generated ${JSON.stringify(b[i]?.slice(0, 120) ?? "(end of file)")}`;
  }
  return `${path}: differs`;
}

describe("docs/reference/ is generated from the code", () => {
  let dir = "";
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "keel-reference-"));
    await writeReference(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`the committed pages are what the generator writes (to update: npm run docs:reference)`, () => {
    const committedDir = join(root, REFERENCE_DIR);
    const committed = statSync(committedDir, { throwIfNoEntry: false }) === undefined ? [] : filesUnder(committedDir);
    const generated = filesUnder(dir);
    const problems: string[] = [];
    for (const path of generated) {
      if (!committed.includes(path)) problems.push(`${REFERENCE_DIR}/${path}: missing`);
      else {
        const a = readFileSync(join(committedDir, path), "utf8");
        const b = readFileSync(join(dir, path), "utf8");
        if (a !== b) problems.push(firstDifference(`${REFERENCE_DIR}/${path}`, a, b));
      }
    }
    for (const path of committed) if (!generated.includes(path)) problems.push(`${REFERENCE_DIR}/${path}: not generated any more (the generator replaces the directory)`);
    assert.equal(problems.join("\n"), "", `docs/reference/ is out of date: ${UPDATE}`);
  });

  it("every flag and variable the service's --help lists is on the configuration page", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith("OTEL_")) delete env[name];
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "lib/sample/main.ts", "--help"], { cwd: root, env });
    const flags = [...stdout.matchAll(/^ {2}(?:-h, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!);
    const [options = "", direct = ""] = stdout.split("\nEnvironment variables without a flag:\n");
    const variables = [...[...options.matchAll(/\[env ([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!), ...[...direct.matchAll(/^ {2}([A-Z][A-Z0-9_]*) /gm)].map((m) => m[1]!)];
    assert.ok(flags.length >= 20 && variables.length >= 30, `--help parsed: ${flags.length} flags, ${variables.length} variables`);
    const page = readFileSync(join(dir, "configuration.md"), "utf8");
    const missing = [...flags.filter((f) => !page.includes(`\`${f}`)), ...variables.filter((v) => !page.includes(`\`${v}\``))];
    assert.deepEqual(missing, [], "scripts/docs-reference.mjs reads the tables lib/sample/main.ts hands runService; " + UPDATE);
  });

  it("every exported DEFAULT_/MAX_/LIMIT constant of lib/ is a listed limit or excused with a reason", () => {
    const listed = new Set(LIMITS.flatMap((a) => a.rows.map(([path, name]) => `${path}:${name}`)));
    const found = limitLikeConstants();
    const missing = found.filter((c) => !listed.has(c) && !(c in NOT_LIMITS));
    assert.deepEqual(missing, [], "add each to LIMITS in scripts/docs-reference.mjs (or to NOT_LIMITS with why it is not a limit), then " + UPDATE);
    const stale = [...listed, ...Object.keys(NOT_LIMITS)].filter((c) => !found.includes(c));
    assert.deepEqual(stale, [], "scripts/docs-reference.mjs names constants lib/ no longer exports");
  });

  it("every environment variable lib/ reads by name is on the configuration page", () => {
    const page = readFileSync(join(dir, "configuration.md"), "utf8");
    const read = new Set<string>();
    const walk = (d: string): void => {
      for (const name of readdirSync(join(root, d))) {
        const path = `${d}/${name}`;
        if (statSync(join(root, path)).isDirectory()) walk(path);
        else if (name.endsWith(".ts")) {
          // Code only: a JSDoc @example's `process.env.CSRF_SECRET` is the user's variable, not ours.
          const code = readFileSync(join(root, path), "utf8").split("\n").filter((l) => !/^\s*(\*|\/\/)/.test(l)).join("\n");
          for (const m of code.matchAll(/\benv(?:\["([A-Z][A-Z0-9_]*)"\]|\.([A-Z][A-Z0-9_]*)\b)/g)) read.add(m[1] ?? m[2]!);
        }
      }
    };
    walk("lib");
    assert.ok(read.has("KEEL_ENV"), "the scan finds process.env reads");
    assert.deepEqual([...read].filter((v) => !page.includes(`\`${v}\``)).sort(), [], "a variable read directly must be a setting or in runService's `environment`");
  });

  it("the byte figures of docs/features/limits.md's table are the generated defaults (the sample's own are marked)", () => {
    const generated = readFileSync(join(dir, "limits.md"), "utf8");
    const wrong: string[] = [];
    readFileSync(join(root, "docs/features/limits.md"), "utf8")
      .split("\n")
      .forEach((line, i) => {
        const cells = line.split("|").map((c) => c.trim());
        // | Surface | What is bounded | Default | At the limit | Details, tests |
        if (cells.length !== 7 || cells[3] === "Default" || /^-+$/.test(cells[3]!)) return;
        const defaults = cells[3]!.replace(/\(sample[^)]*\)/g, "");
        for (const m of defaults.matchAll(/(\d+) (KiB|MiB|GiB)\b/g)) {
          if (!generated.includes(`| ${m[1]} ${m[2]} (`)) wrong.push(`docs/features/limits.md:${i + 1}: ${m[0]} is no default on ${REFERENCE_DIR}/limits.md`);
        }
      });
    assert.deepEqual(wrong, []);
  });

  it("figures are written with their unit; JSDoc summaries are the first paragraph", () => {
    assert.equal(formatBytes(16_384), "16 KiB (16,384 bytes)");
    assert.equal(formatBytes(64 * 1024 * 1024), "64 MiB (67,108,864 bytes)");
    assert.equal(formatBytes(125), "125 bytes");
    assert.equal(formatMs(10_000), "10 s (10,000 ms)");
    assert.equal(formatMs(3_600_000), "1 h (3,600,000 ms)");
    assert.equal(formatMs(1500), "1,500 ms");
    assert.equal(docSummary("/** First line\n * goes on, see {@link App}.\n *\n * More.\n * @example x\n */\n"), "First line goes on, see `App`.");
    assert.equal(docSummary("/** Page: [ws.md](../../docs/features/ws.md). */"), "Page: [ws.md](../../features/ws.md).");
    assert.equal(docSummary("/** See [the code](./plugin.ts), [RFC](https://example.com/rfc). */"), "See the code (./plugin.ts), [RFC](https://example.com/rfc).");
  });
});
