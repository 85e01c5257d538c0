// The import graph of lib/ and the architecture rules over it (docs/ARCHITECTURE.md "Layout").
// `node scripts/import-graph.mjs` prints every violation and cycle (exit 1 when there are any);
// spec/architecture/import-rules.test.ts runs the same checks on every `npm test`.
//
// Read as text: static `import`/`export ... from` (type-only included) and `import("...")` with a
// string literal. Comments and template strings are blanked first, so generated code held in a
// template (the job worker's source) draws no edge.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const KERNEL = new Set(["core", "server", "router", "schema", "extract", "util"]);
const NOT_FEATURES = new Set([...KERNEL, "shared", "sample"]);
/** Folders whose subfolders are each a feature of their own (lib/middleware/cors, ...). */
const FEATURE_GROUPS = new Set(["auth", "middleware", "web"]);

/** Blank comments and the contents of string and template literals (keeping quotes and length). */
export function stripNonCode(text) {
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === "/" && d === "/") {
      while (i < n && text[i] !== "\n") (out += " "), i++;
    } else if (c === "/" && d === "*") {
      while (i < n && !(text[i] === "*" && text[i + 1] === "/")) (out += text[i] === "\n" ? "\n" : " "), i++;
      out += "  ";
      i += 2;
    } else if (c === "`") {
      out += "`";
      i++;
      let depth = 0;
      while (i < n) {
        if (text[i] === "\\") (out += "  "), (i += 2);
        else if (depth === 0 && text[i] === "`") break;
        else if (text[i] === "$" && text[i + 1] === "{") (depth++, (out += "  "), (i += 2));
        else if (depth > 0 && text[i] === "}") (depth--, (out += " "), i++);
        else (out += text[i] === "\n" ? "\n" : " "), i++;
      }
      out += "`";
      i++;
    } else if (c === '"' || c === "'") {
      // Strings are kept: module specifiers are strings.
      const q = c;
      out += q;
      i++;
      while (i < n && text[i] !== q && text[i] !== "\n") {
        if (text[i] === "\\") (out += text[i] + (text[i + 1] ?? "")), (i += 2);
        else (out += text[i]), i++;
      }
      out += text[i] ?? "";
      i++;
    } else (out += c), i++;
  }
  return out;
}

const IMPORT_RE = /(?:^|[;\s}])(?:import|export)\s+(type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every specifier a source file imports: `{ spec, typeOnly }`. */
export function importsOf(text) {
  const code = stripNonCode(text);
  const out = [];
  for (const m of code.matchAll(IMPORT_RE)) {
    const spec = m[2] ?? m[3];
    if (spec !== undefined) out.push({ spec, typeOnly: m[1] !== undefined });
  }
  return out;
}

function listTs(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) listTs(full, out);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** The graph of `libDir`: Map<relative file, Array<{ to, spec, typeOnly }>> and bare imports. */
export function readGraph(libDir) {
  const root = resolve(libDir);
  const graph = new Map();
  const problems = [];
  for (const file of listTs(root)) {
    const from = relative(root, file).split(sep).join("/");
    const edges = [];
    for (const { spec, typeOnly } of importsOf(readFileSync(file, "utf8"))) {
      if (spec.startsWith("node:")) continue;
      if (!spec.startsWith(".")) {
        problems.push({ rule: "no runtime dependencies: only node: builtins and relative imports", from, to: spec });
        continue;
      }
      const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
      if (!existsSync(target)) {
        problems.push({ rule: "imports resolve to a file (with a .js specifier)", from, to: spec });
        continue;
      }
      edges.push({ to: relative(root, target).split(sep).join("/"), spec, typeOnly });
    }
    graph.set(from, edges);
  }
  return { graph, problems };
}

/** The area a file belongs to: "index" (the kernel facade), a kernel folder, "shared", "sample", or a feature. */
export function areaOf(file) {
  const parts = file.split("/");
  if (parts.length === 1) return file === "index.ts" ? "index" : file === "plugin.ts" ? "plugin" : "root";
  const top = parts[0];
  if (FEATURE_GROUPS.has(top) && parts.length > 2) return `${top}/${parts[1]}`;
  return top;
}

const isKernel = (area) => KERNEL.has(area);
const isFeature = (area) => !NOT_FEATURES.has(area) && area !== "index" && area !== "plugin" && area !== "root";
/** The kernel's two public entries: `keel` (lib/index.ts) and `keel/plugin` (lib/plugin.ts). */
const isKernelEntry = (file) => file === "index.ts" || file === "plugin.ts";
const entryOf = (area) => `${area}/index.ts`;

/** Which imports of kernel files are allowed, by area. */
const KERNEL_ALLOWS = {
  util: new Set(["util"]),
  router: new Set(["router", "util"]),
  schema: new Set(["schema", "util"]),
  // The request model; App binds it to node:http through lib/server (listen, handle, write).
  core: new Set(["core", "server", "router", "schema", "util"]),
  // The node:http binding: it writes the model's replies and answers with its errors.
  server: new Set(["server", "core", "util"]),
  extract: new Set(["extract", "core", "schema", "util"]),
};

/** The rule an edge breaks, or null. */
export function ruleBroken(from, to) {
  const a = areaOf(from);
  const b = areaOf(to);
  if (b === "sample" && a !== "sample") return "nothing in lib/ imports the sample";
  if (a in KERNEL_ALLOWS) return KERNEL_ALLOWS[a].has(b) ? null : `lib/${a} imports only ${[...KERNEL_ALLOWS[a]].map((x) => "lib/" + x).join(", ")}`;
  if (a === "index" || a === "plugin") return isKernel(b) ? null : `the kernel entry (lib/${a}.ts) imports only the kernel`;
  if (a === "shared") {
    if (b === "shared" || isKernelEntry(to)) return null;
    return isKernel(b) ? "lib/shared reaches the kernel only through lib/index.ts and lib/plugin.ts" : "lib/shared imports only the kernel's entries and itself";
  }
  if (a === "sample") {
    if (b === "sample" || isKernelEntry(to)) return null;
    if (isFeature(b) && (to === entryOf(b) || to === entryOf(b.split("/")[0]))) return null;
    return "the sample imports only entry points (lib/index.ts, lib/<feature>/index.ts) and its own files";
  }
  if (isFeature(a)) {
    if (isKernelEntry(to) || b === "shared" || b === a) return null;
    if (isKernel(b)) return "a feature reaches the kernel only through lib/index.ts (keel) and lib/plugin.ts (keel/plugin)";
    // A group's own index (lib/auth/index.ts) re-exports its subfeatures.
    if (from === entryOf(a) && b.startsWith(a + "/")) return null;
    if (isFeature(b) && to === entryOf(b)) return null;
    return "a feature imports another feature only through its index.ts";
  }
  return `unexpected file outside the layout (${a})`;
}

/** Every cycle (as a list of files, first repeated at the end), one per strongly connected group. */
export function findCycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const groups = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!idx.has(to)) (visit(to), low.set(v, Math.min(low.get(v), low.get(to))));
      else if (on.has(to)) low.set(v, Math.min(low.get(v), idx.get(to)));
    }
    if (low.get(v) === idx.get(v)) {
      const g = [];
      let w;
      do (w = stack.pop()), on.delete(w), g.push(w);
      while (w !== v);
      const selfLoop = (graph.get(v) ?? []).some((e) => e.to === v);
      if (g.length > 1 || selfLoop) groups.push(new Set(g));
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  // One concrete cycle path per group, for the message.
  return groups.map((g) => {
    const start = [...g].sort()[0];
    const prev = new Map([[start, null]]);
    const queue = [start];
    while (queue.length > 0) {
      const v = queue.shift();
      for (const { to } of graph.get(v) ?? []) {
        if (!g.has(to)) continue;
        if (to === start) {
          const path = [start];
          for (let x = v; x !== start; x = prev.get(x)) path.splice(1, 0, x);
          return [...path, start];
        }
        if (!prev.has(to)) (prev.set(to, v), queue.push(to));
      }
    }
    return [start, start];
  });
}

/** Everything wrong with `libDir`: `{ violations: [{rule, from, to}], cycles: [[file...]] }`. */
export function checkLayout(libDir) {
  const { graph, problems } = readGraph(libDir);
  const violations = [...problems];
  for (const [from, edges] of graph) {
    for (const { to } of edges) {
      const rule = ruleBroken(from, to);
      if (rule !== null) violations.push({ rule, from, to });
    }
  }
  return { violations, cycles: findCycles(graph), files: graph.size };
}

export function formatReport({ violations, cycles }) {
  const lines = [];
  for (const v of violations) lines.push(`lib/${v.from} -> ${v.to.startsWith(".") || v.to.includes(":") ? v.to : "lib/" + v.to}: ${v.rule}`);
  for (const c of cycles) lines.push(`cycle: ${c.map((f) => "lib/" + f).join(" -> ")}`);
  return lines.join("\n");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const libDir = process.argv[2] ?? fileURLToPath(new URL("../lib", import.meta.url));
  const report = checkLayout(libDir);
  const text = formatReport(report);
  console.log(text === "" ? `lib/: ${report.files} files, no violations, no cycles` : text);
  process.exit(text === "" ? 0 : 1);
}
