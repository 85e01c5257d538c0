// The docs test (issue 36): README.md and docs/**/*.md are checked as a user would meet them.
//
// Rules, for whoever writes docs:
// 1. Every ```ts (or ```typescript) block compiles as a user's own file would: one module per
//    block, strict TypeScript, ESM with NodeNext resolution and @types/node, importing `keel` and
//    `keel/<sub>` (package.json "exports", mapped to the lib/ sources they are built from), or
//    `./vendor/keel.js`, the vendored file of the default build (every feature). A block
//    must therefore import what it uses and declare what it leaves out
//    (`declare const db: { ping(): Promise<void> };`): readers see the same lines.
// 2. A block that continues the previous ts block of the same page (a fragment that reuses its
//    names) says so on the line before its fence: `<!-- docs-test: continues -->`. The two are
//    compiled as one file, in page order; a chain can be as long as needed.
// 3. A block that cannot compile opts out on the line before its fence, with a reason a reader
//    can judge: `<!-- docs-test: skip (pseudo-code: the signature only) -->`. A skip without a
//    reason, an unknown marker, or a marker not followed by a ts block fails the test.
// 4. Every relative link resolves: the file or folder exists inside the repository and, for
//    `#anchor` links into markdown (or within the page), the heading exists under GitHub's slug
//    rules (lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats) or as an
//    HTML `id`/`name`. Markdown links, reference definitions and `<a href>`/`<img src>` count;
//    links shown as code do not.
// 5. Entry points and build features are named as they exist: every `keel/<sub>` must be a
//    package.json export, every `--features` name a feature or group of scripts/features.mjs, and a
//    group shown with its members (`web` (cookies, session, ...)) lists them all. A text block
//    (paragraph, list item or table) that names 8 or more entry points (as `keel/<sub>`), or 12
//    or more features (as `name` in backticks or a `+ name` table row), is a list of them and
//    names every one (the kernel as `keel` in backticks; features without `kernel`). A block can
//    be declared a list whatever its size (a table lists what its first column names) with `<!-- docs-test: entries -->` or
//    `<!-- docs-test: features -->` on the line before it; in a marked features list every
//    backticked word is a feature or a group. README.md names every entry point in one block,
//    and some page (README.md or docs/) every feature.
// Failures name the file and line (for compiler errors, the markdown line of the code) so a fix is
// one jump away. The compiler runs once, over every block, as one `tsc -p` child.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type CodeBlock, type ParsedMarkdown, type Problem, parseMarkdown, slug } from "./markdown.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

interface FeaturesModule {
  FEATURES: Array<{ name: string; entry: string }>;
  GROUPS: Record<string, string[]>;
  PACKAGE_ENTRIES: Array<{ subpath: string; entry: string }>;
}
// A .mjs build script: loaded by URL so the strict project needs no declarations for it.
const features = (await import(pathToFileURL(join(root, "scripts/features.mjs")).href)) as FeaturesModule;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };

/** README.md and every markdown file under docs/, repo-relative, sorted. */
function docFiles(): string[] {
  const out = ["README.md"];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith(".md")) out.push(rel);
    }
  };
  walk("docs");
  return out;
}

const parsed = new Map<string, ParsedMarkdown>();
function parse(file: string): ParsedMarkdown {
  let p = parsed.get(file);
  if (p === undefined) {
    p = parseMarkdown(file, readFileSync(join(root, file), "utf8"));
    parsed.set(file, p);
  }
  return p;
}

const show = (problems: Problem[]): string => problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join("\n");

/** "keel" for ".", "keel/x" for "./x". */
const entryName = (subpath: string): string => (subpath === "." ? "keel" : `keel/${subpath.slice(2)}`);

// ---------------------------------------------------------------------------------------------
// (a) ts blocks

/** One generated file: its code and, per line, where that line is in the markdown. */
interface Unit {
  name: string;
  code: string[];
  origin: Array<{ file: string; line: number }>;
}

/** Blocks into compile units: `continues` blocks join the unit of the block before them. */
function units(blocks: CodeBlock[]): { units: Unit[]; problems: Problem[] } {
  const out: Unit[] = [];
  const problems: Problem[] = [];
  let last: { unit: Unit | undefined; file: string } | undefined;
  for (const block of blocks) {
    const origin = block.code.map((_, i) => ({ file: block.file, line: block.line + 1 + i }));
    if (block.mode === "skip") {
      last = { unit: undefined, file: block.file };
      continue;
    }
    if (block.mode === "continues") {
      if (last === undefined || last.file !== block.file) {
        problems.push({ file: block.file, line: block.line, message: "docs-test: continues, but no ```ts block comes before it in this file" });
        continue;
      }
      if (last.unit === undefined) {
        problems.push({ file: block.file, line: block.line, message: "docs-test: continues a block that is skipped; skip this one too (with a reason) or stop skipping that one" });
        continue;
      }
      last.unit.code.push(...block.code);
      last.unit.origin.push(...origin);
      continue;
    }
    const unit: Unit = { name: `block${out.length + 1}.ts`, code: [...block.code], origin };
    out.push(unit);
    last = { unit, file: block.file };
  }
  return { units: out, problems };
}

/** The compiler's `file(line,col): error TSnnnn: message` lines (and their indented continuations). */
function compilerDiagnostics(output: string): Array<{ file: string; line: number; col: number; message: string }> {
  const out: Array<{ file: string; line: number; col: number; message: string }> = [];
  for (const raw of output.split("\n")) {
    const m = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+: .*)$/.exec(raw);
    if (m !== null) out.push({ file: m[1]!, line: Number(m[2]), col: Number(m[3]), message: m[5]! });
    else if (raw.startsWith("  ") && out.length > 0) out[out.length - 1]!.message += "\n    " + raw.trim();
    else if (raw.trim() !== "") out.push({ file: "", line: 0, col: 0, message: raw.trim() });
  }
  return out;
}

/** `paths` for the user's tsconfig: every export to the lib/ file its dist entry is built from. */
function entryPaths(): Record<string, string[]> {
  return Object.fromEntries(features.PACKAGE_ENTRIES.map((e) => [entryName(e.subpath), [join(root, e.entry)]]));
}

/** How the docs import the vendored bundle (README, "Using keel in another project"). */
const VENDORED = "./vendor/keel.js";

function typecheck(unitsToCheck: Unit[]): Problem[] {
  // Inside the repo (in the ignored .tmp/) so @types/node resolves as it does for a project that
  // has it installed; removed afterwards.
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const dir = mkdtempSync(join(root, ".tmp", "docs-test-"));
  try {
    const project = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> };
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        // The project's own strictness, so the lib/ sources reached through `paths` check as they do
        // in `npm run typecheck`; the blocks get the same rules a strict user's project would have.
        compilerOptions: { ...project.compilerOptions, module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, paths: entryPaths() },
        files: unitsToCheck.map((u) => u.name),
      }),
    );
    for (const u of unitsToCheck) writeFileSync(join(dir, u.name), u.code.join("\n") + "\nexport {};\n");
    // The vendored dist/keel.js of `--features all`, as its sources: written only when a block
    // imports it, since it brings every feature into the program.
    if (unitsToCheck.some((u) => u.code.some((l) => l.includes(`"${VENDORED}"`)))) {
      const file = join(dir, VENDORED.replace(/\.js$/, ".ts"));
      mkdirSync(dirname(file), { recursive: true });
      const spec = (entry: string): string => relative(dirname(file), join(root, entry)).split(sep).join("/").replace(/\.ts$/, ".js");
      writeFileSync(file, features.FEATURES.map((f) => `export * from "${spec(f.entry)}";\n`).join(""));
    }
    const result = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
      cwd: dir,
      encoding: "utf8",
    });
    if (result.status === 0) return [];
    const byName = new Map(unitsToCheck.map((u) => [u.name, u]));
    const problems: Problem[] = [];
    for (const d of compilerDiagnostics(result.stdout + result.stderr)) {
      const unit = byName.get(relative(dir, resolve(dir, d.file)));
      const at = unit?.origin[d.line - 1];
      if (at !== undefined) problems.push({ file: at.file, line: at.line, message: `column ${d.col}: ${d.message}` });
      else problems.push({ file: d.file === "" ? "(tsc)" : relative(root, resolve(dir, d.file)), line: d.line, message: d.message });
    }
    if (problems.length === 0) problems.push({ file: "(tsc)", line: 0, message: `exit ${result.status ?? result.signal}: ${result.stderr || result.stdout}` });
    return problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// (b) links

function checkLinks(file: string): Problem[] {
  const problems: Problem[] = [];
  for (const link of parse(file).links) {
    const fail = (message: string): void => void problems.push({ file, line: link.line, message: `link ${link.target}: ${message}` });
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.target) || link.target.startsWith("//")) continue; // absolute URL
    const hash = link.target.indexOf("#");
    const pathPart = hash < 0 ? link.target : link.target.slice(0, hash);
    const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1)).toLowerCase();
    let target = file;
    if (pathPart !== "") {
      const abs = pathPart.startsWith("/") ? join(root, decodeURI(pathPart)) : resolve(root, dirname(file), decodeURI(pathPart));
      const rel = relative(root, abs);
      if (rel.startsWith("..") || rel.split(sep)[0] === "..") {
        fail("leaves the repository");
        continue;
      }
      if (!existsSync(abs)) {
        fail(`${rel} does not exist`);
        continue;
      }
      target = rel.split(sep).join("/");
    }
    if (anchor === undefined || anchor === "") continue;
    if (!target.endsWith(".md")) {
      fail("an anchor into a file that is not markdown cannot be checked; link the file");
      continue;
    }
    if (!parse(target).anchors.has(anchor)) fail(`no heading in ${target} has the anchor #${anchor}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// (c) entry points and features

const EXPORTS = Object.keys(pkg.exports).map(entryName);
const FEATURE_NAMES = new Set(features.FEATURES.map((f) => f.name));
const GROUP_NAMES = new Set(Object.keys(features.GROUPS));
const ENTRY_MENTION = /(?<![\w./@-])keel\/([a-z0-9][a-z0-9-]*)/g;

function mentionedEntries(text: string): Set<string> {
  return new Set([...text.matchAll(ENTRY_MENTION)].map((m) => `keel/${m[1]!}`));
}

/** Feature names a text block shows: backticked words and `+ name` rows of a size table. */
function mentionedFeatures(text: string): { named: Set<string>; words: string[] } {
  const words = [...text.matchAll(/`([a-z][a-z0-9-]*)`/g)].map((m) => m[1]!);
  words.push(...[...text.matchAll(/^\|\s*\+\s*([a-z][a-z0-9-]*)\s*\|/gm)].map((m) => m[1]!));
  return { named: new Set(words.filter((w) => FEATURE_NAMES.has(w))), words };
}

/**
 * What a block lists: a table's first column (a table whose prose cells mention entry points, as
 * the error catalogue's "raised by" does, is not a list of them), otherwise the whole block.
 */
function listedText(text: string): string {
  const lines = text.split("\n");
  if (!lines.every((l) => l.trimStart().startsWith("|"))) return text;
  return lines.map((l) => l.trimStart().slice(1).split("|")[0] ?? "").join("\n");
}

/** A text block naming this many entry points (features) is a list of them and must be complete. */
const ENTRY_LIST = 8;
const FEATURE_LIST = 12;

/** Entry points a block does not name; the kernel counts as named when `keel` is in backticks. */
function missingEntries(text: string): string[] {
  const entries = mentionedEntries(text);
  return EXPORTS.filter((e) => (e === "keel" ? !text.includes("`keel`") : !entries.has(e)));
}

function missingFeatures(text: string): string[] {
  const { named } = mentionedFeatures(text);
  return [...FEATURE_NAMES].filter((f) => f !== "kernel" && !named.has(f));
}

function checkLists(file: string): Problem[] {
  const problems: Problem[] = [];
  const source = readFileSync(join(root, file), "utf8").split("\n");
  source.forEach((text, i) => {
    for (const e of mentionedEntries(text)) {
      if (!EXPORTS.includes(e)) problems.push({ file, line: i + 1, message: `${e} is not an entry point (package.json "exports": ${EXPORTS.join(", ")})` });
    }
    for (const m of text.matchAll(/--features[ =]([a-z0-9][a-z0-9,-]*)/g)) {
      for (const name of m[1]!.split(",")) {
        // Single letters are placeholders (`--features a,b`).
        if (name.length > 1 && !FEATURE_NAMES.has(name) && !GROUP_NAMES.has(name)) {
          problems.push({ file, line: i + 1, message: `--features names ${name}, which is neither a feature nor a group of scripts/features.mjs` });
        }
      }
    }
  });
  for (const block of parse(file).text) {
    const at = (message: string): void => void problems.push({ file, line: block.line, message });
    // A group shown with its members lists all of them.
    for (const m of block.text.matchAll(/`([a-z][a-z0-9-]*)`\s*\(([a-z0-9-]+(?:,\s*[a-z0-9-]+)+)\)/g)) {
      const group = features.GROUPS[m[1]!];
      if (group === undefined) continue;
      const shown = m[2]!.split(/,\s*/);
      const missing = group.filter((f) => !shown.includes(f));
      const extra = shown.filter((f) => !group.includes(f));
      if (missing.length + extra.length > 0) {
        at(`group ${m[1]} is shown as (${shown.join(", ")})${missing.length > 0 ? `; missing ${missing.join(", ")}` : ""}${extra.length > 0 ? `; not in it: ${extra.join(", ")}` : ""}`);
      }
    }
    const listed = listedText(block.text);
    const entries = mentionedEntries(listed);
    if (block.marker === "entries" || entries.size >= ENTRY_LIST) {
      const missing = missingEntries(listed);
      if (missing.length > 0) {
        at(`this list of entry points (${block.marker === "entries" ? "marked" : `it names ${entries.size}`}) misses ${missing.join(", ")}: name all ${EXPORTS.length} of package.json "exports", or fewer than ${ENTRY_LIST} if it is not meant as the list`);
      }
    }
    const { named, words } = mentionedFeatures(listed);
    if (block.marker === "features" || named.size >= FEATURE_LIST) {
      const missing = missingFeatures(listed);
      if (missing.length > 0) {
        at(`this list of features (${block.marker === "features" ? "marked" : `it names ${named.size}`}) misses ${missing.join(", ")}: name all ${FEATURE_NAMES.size - 1} of scripts/features.mjs, or fewer than ${FEATURE_LIST} if it is not meant as the list`);
      }
    }
    if (block.marker === "features") {
      const extra = [...new Set(words.filter((w) => !FEATURE_NAMES.has(w) && !GROUP_NAMES.has(w)))];
      if (extra.length > 0) at(`this list of features names ${extra.join(", ")}, not features or groups of scripts/features.mjs`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------

describe("docs: README.md and docs/**/*.md", () => {
  const files = docFiles();

  it("markers are well formed (skip has a reason, each is directly before what it marks)", () => {
    assert.equal(show(files.flatMap((f) => parse(f).problems)), "");
  });

  it("every ```ts block type-checks against the entry points, as a user's file", () => {
    const all = files.flatMap((f) => parse(f).blocks);
    const { units: toCheck, problems } = units(all);
    problems.push(...typecheck(toCheck));
    assert.equal(show(problems), "", `${problems.length} problem(s) in ${toCheck.length} compiled unit(s) of ${all.length} ts blocks`);
  });

  it("every relative link resolves, anchors included", () => {
    assert.equal(show(files.flatMap(checkLinks)), "");
  });

  it("entry points and build features are named as package.json and scripts/features.mjs have them", () => {
    assert.deepEqual(EXPORTS, features.PACKAGE_ENTRIES.map((e) => entryName(e.subpath)), "package.json exports are scripts/features.mjs's PACKAGE_ENTRIES");
    assert.equal(show(files.flatMap(checkLists)), "");
  });

  it("README lists every entry point, and the docs every build feature", () => {
    assert.ok(
      parse("README.md").text.some((b) => missingEntries(b.text).length === 0),
      `README.md has a paragraph, list item or table naming all ${EXPORTS.length} entry points`,
    );
    assert.ok(
      files.some((f) => parse(f).text.some((b) => missingFeatures(b.text).length === 0)),
      `README.md or a page under docs/ has a paragraph, list item or table naming all ${FEATURE_NAMES.size - 1} build features (--features)`,
    );
  });
});

describe("docs test rules", () => {
  it("a skip marker needs a reason; unknown and stray markers are reported", () => {
    const md = [
      "<!-- docs-test: skip -->",
      "```ts",
      "x",
      "```",
      "<!-- docs-test: skip () -->",
      "```ts",
      "```",
      "<!-- docs-test: skipp (typo) -->",
      "```ts",
      "```",
      "<!-- docs-test: skip (a reason) -->",
      "",
      "text",
      "<!-- docs-test: skip (fine) -->",
      "```typescript",
      "```",
    ].join("\n");
    const p = parseMarkdown("x.md", md);
    assert.deepEqual(
      p.problems.map((x) => x.line),
      [1, 5, 8, 11],
    );
    assert.deepEqual(
      p.blocks.map((b) => [b.mode, b.reason]),
      [
        ["check", undefined],
        ["check", undefined],
        ["check", undefined],
        ["skip", "fine"],
      ],
    );
  });

  it("continues joins a block to the previous one with markdown lines kept; not after a skip", () => {
    const md = ["# T", "```ts", "const a = 1;", "```", "text", "<!-- docs-test: continues -->", "  ```ts", "  a;", "  ```", "<!-- docs-test: skip (why) -->", "```ts", "```", "<!-- docs-test: continues -->", "```ts", "```"].join("\n");
    const p = parseMarkdown("x.md", md);
    assert.equal(show(p.problems), "");
    const u = units(p.blocks);
    assert.equal(u.units.length, 1);
    assert.deepEqual(u.units[0]!.code, ["const a = 1;", "a;"]);
    assert.deepEqual(u.units[0]!.origin.map((o) => o.line), [3, 8]);
    assert.deepEqual(u.problems.map((x) => x.line), [14]);
  });

  it("compiler errors point at the markdown line, through continues chains and the vendored file", () => {
    const md = [
      "```ts",
      'import { App } from "./vendor/keel.js";',
      "const app = new App();",
      "```",
      "<!-- docs-test: continues -->",
      "```ts",
      "const n: number = app;",
      "```",
      "```ts",
      'import { websockets } from "keel/ws";',
      "websockets(42);",
      "```",
    ].join("\n");
    const found = typecheck(units(parseMarkdown("x.md", md).blocks).units);
    assert.deepEqual(
      found.map((p) => [p.file, p.line, /TS\d+/.exec(p.message)?.[0]]),
      [
        ["x.md", 7, "TS2322"],
        ["x.md", 11, "TS2559"],
      ],
      show(found),
    );
  });

  it("slugs follow GitHub: lower case, punctuation out, spaces to hyphens, repeats numbered", () => {
    assert.equal(slug("Several instances: Redis (`keel/redis`)"), "several-instances-redis-keelredis");
    assert.equal(slug("Observability: traces, metrics, insight, replay, audit"), "observability-traces-metrics-insight-replay-audit");
    assert.equal(slug("A [linked](x.md) heading_with *emphasis*"), "a-linked-heading_with-emphasis");
    const p = parseMarkdown("x.md", '# Usage\n## Usage\n```sh\n# not a heading\n```\n<a id="here"></a> <h3 name="there">x</h3> <a href="y.md#z">y</a>');
    assert.deepEqual([...p.anchors].sort(), ["here", "there", "usage", "usage-1"]);
    assert.deepEqual(p.links.map((l) => l.target), ["y.md#z"]);
  });

  it("links in inline code and code blocks are not links", () => {
    const p = parseMarkdown("x.md", "see `[a](b.md)` and [c](d.md#e)\n```ts\n[f](g.md)\n```");
    assert.deepEqual(p.links.map((l) => l.target), ["d.md#e"]);
  });
});
