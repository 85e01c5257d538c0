// A small d.ts bundler: merges the declaration files tsc emitted for lib/ (reachable from the
// entry) into ONE self-contained file. TypeScript 7 has no declaration bundling and we add no
// dev dependency, so this is done here, on the regular shape of tsc's declaration output.
//
// Shape of the result:
//   /// <reference types="node" />
//   import * as __node_http from "node:http";                 (node:* imports, hoisted once)
//   declare namespace __keel_core_app {                         (one namespace per module)
//       import Logger = __keel_core_logger.Logger;              (its imports, as aliases)
//       export declare-less declarations ...                    (every declaration exported)
//   }
//   declare namespace __keelns_x { export import A = ...; }   (a module's export list, only
//                                                               where `import * as`/import() need it)
//   import __keelexp_App = __keel_core_app.App;
//   export { __keelexp_App as App, type __keelexp_Layer as Layer, ... };
//
// Namespaces keep every module's scope exactly as it was (no renaming, no clashes between
// modules' private names), and only `__keel_*`, `__keelns_*`, `__keelexp_*` and `__node_*` names
// (three distinct prefixes, so they cannot collide) are added at the top level: nothing shadows
// a global the declarations refer to. Anything this bundler does not understand
// is an error naming the file, never a silently wrong output.
import { readFileSync, existsSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";

const IDENT = "[A-Za-z_$][\\w$]*";

export class DtsBundleError extends Error {}

/**
 * Bundle the declaration tree under `declarationDir` starting at `entry` (e.g. "index.d.ts").
 * Returns `{ text, exports, ambiguous }`: the single declaration file, the entry's exports as
 * `{ name, typeOnly, kinds }` (kinds: the declaration keywords behind the name, when local to
 * the bundle) so the caller can compare them with the JavaScript bundle's exports, and the
 * names the entry's `export *` lines provide ambiguously (`{ name, from }`, left out).
 */
export function bundleDeclarations({ declarationDir, entry = "index.d.ts", banner = "" }) {
  const root = resolve(declarationDir);
  const modules = loadModuleGraph(root, entry);
  const emitter = new Emitter(modules);
  return emitter.emit(modules.get(moduleKey(root, join(root, entry))), banner);
}

// --- scanning -----------------------------------------------------------------------------------

/**
 * Two same-length views of `text`: `code` with comments blanked and string/template contents
 * replaced by "x" (structure only), `noComments` with comments blanked but strings intact.
 * `literalNewlines` holds the offsets of newlines inside string or template literals.
 */
export function maskSource(text) {
  const code = text.split("");
  const noComments = text.split("");
  const literalNewlines = new Set();
  const n = text.length;
  const blank = (from, to, alsoNoComments) => {
    for (let k = from; k < to; k++) {
      if (text[k] === "\n") continue;
      code[k] = " ";
      if (alsoNoComments) noComments[k] = " ";
    }
  };
  const hide = (k) => {
    if (text[k] === "\n") literalNewlines.add(k);
    else code[k] = "x";
  };
  // Each stack entry is the brace depth at which a `${` was opened inside a template literal.
  const templateStack = [];
  let braceDepth = 0;
  let i = 0;
  const scanTemplateBody = () => {
    // i is just after a backtick or a closing `}` of `${...}`; hide until "`" or "${".
    while (i < n) {
      const c = text[i];
      if (c === "\\") {
        hide(i);
        hide(i + 1);
        i += 2;
      } else if (c === "`") {
        i++;
        return;
      } else if (c === "$" && text[i + 1] === "{") {
        hide(i);
        hide(i + 1);
        i += 2;
        templateStack.push(braceDepth);
        braceDepth++;
        return;
      } else {
        hide(i);
        i++;
      }
    }
  };
  while (i < n) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      blank(i, stop, true);
      i = stop;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end === -1) throw new DtsBundleError("unterminated comment");
      blank(i, end + 2, true);
      i = end + 2;
    } else if (c === '"' || c === "'") {
      i++;
      while (i < n && text[i] !== c) {
        if (text[i] === "\\") {
          hide(i);
          i++;
        }
        hide(i);
        i++;
      }
      i++;
    } else if (c === "`") {
      i++;
      scanTemplateBody();
    } else if (c === "{") {
      braceDepth++;
      i++;
    } else if (c === "}") {
      braceDepth--;
      if (templateStack.length > 0 && templateStack[templateStack.length - 1] === braceDepth) {
        templateStack.pop();
        hide(i);
        i++;
        scanTemplateBody();
      } else {
        i++;
      }
    } else {
      i++;
    }
  }
  return { code: code.join(""), noComments: noComments.join(""), literalNewlines };
}

const BLOCK_HEAD = /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:const\s+)?(?:class|interface|namespace|module|enum|global)\b/;

/** Split a declaration file into top-level statements, each with its leading comments. */
export function splitStatements(text) {
  const { code, noComments, literalNewlines } = maskSource(text);
  const statements = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const start = i;
    while (i < n && /\s/.test(code[i])) i++;
    if (i >= n) break;
    const codeStart = i;
    const blockBodied = BLOCK_HEAD.test(code.slice(codeStart, codeStart + 200));
    let braces = 0;
    let parens = 0;
    let brackets = 0;
    let angles = 0;
    let bodyOpened = false;
    let end = -1;
    for (; i < n; i++) {
      const c = code[i];
      if (c === "{") {
        if (blockBodied && !bodyOpened && braces === 0 && parens === 0 && brackets === 0 && angles === 0) bodyOpened = true;
        braces++;
      } else if (c === "}") {
        braces--;
        if (blockBodied && bodyOpened && braces === 0) {
          end = i + 1;
          // Tolerate a `;` right after the body on the same line.
          let k = end;
          while (k < n && (code[k] === " " || code[k] === "\t")) k++;
          if (code[k] === ";") end = k + 1;
          break;
        }
      } else if (c === "(") parens++;
      else if (c === ")") parens--;
      else if (c === "[") brackets++;
      else if (c === "]") brackets--;
      else if (c === "<") angles++;
      else if (c === ">" && code[i - 1] !== "=" && angles > 0) angles--;
      else if (c === ";" && braces === 0 && parens === 0 && brackets === 0) {
        end = i + 1;
        break;
      }
    }
    if (end === -1) throw new DtsBundleError(`unterminated statement: ${text.slice(codeStart, codeStart + 80)}`);
    statements.push({
      leading: text.slice(start, codeStart),
      text: text.slice(codeStart, end),
      code: code.slice(codeStart, end),
      noComments: noComments.slice(codeStart, end),
      offset: codeStart,
    });
    i = end;
  }
  return { statements, literalNewlines, code };
}

// --- parsing one module -------------------------------------------------------------------------

function moduleKey(root, file) {
  return relative(root, file).split(sep).join("/");
}

/** "./x.js" from "a/b.d.ts" -> "a/x.d.ts"; node builtins -> { node }; anything else is an error. */
function classifySpecifier(root, fromFile, spec) {
  if (spec.startsWith("./") || spec.startsWith("../")) {
    const target = resolve(dirname(fromFile), spec);
    let dts;
    if (target.endsWith(".js")) dts = target.slice(0, -3) + ".d.ts";
    else if (target.endsWith(".mjs")) dts = target.slice(0, -4) + ".d.mts";
    else throw new DtsBundleError(`${moduleKey(root, fromFile)}: unsupported import specifier "${spec}" (expected .js)`);
    if (!existsSync(dts)) throw new DtsBundleError(`${moduleKey(root, fromFile)}: cannot find declarations for "${spec}"`);
    if (!dts.startsWith(root + sep)) throw new DtsBundleError(`${moduleKey(root, fromFile)}: "${spec}" leaves the declaration root`);
    return { module: moduleKey(root, dts) };
  }
  if (isBuiltin(spec)) return { node: spec };
  throw new DtsBundleError(
    `${moduleKey(root, fromFile)}: import of "${spec}" — only relative and node:* imports can be bundled (keel has no dependencies)`,
  );
}

/** `{ a, type b, c as d, }` -> [{ name, alias, typeOnly }]. */
function parseNameList(inner, where) {
  const out = [];
  for (const raw of inner.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const m = new RegExp(`^(type\\s+)?(${IDENT})(?:\\s+as\\s+(${IDENT}))?$`).exec(part);
    if (m === null) throw new DtsBundleError(`${where}: cannot parse "${part}"`);
    out.push({ name: m[2], alias: m[3] ?? m[2], typeOnly: m[1] !== undefined });
  }
  return out;
}

const DECLARATION = new RegExp(
  `^(export\\s+)?(declare\\s+)?((?:abstract\\s+)?)(function|class|interface|type|enum|namespace|module|const\\s+enum|const|let|var)\\s+(${IDENT})`,
);

/** Names declared by `const a: A, b: B;` (top-level commas only). */
function variableNames(code, firstName, headEnd) {
  const names = [firstName];
  let depth = 0;
  for (let i = headEnd; i < code.length; i++) {
    const c = code[i];
    if (c === "{" || c === "(" || c === "[" || c === "<") depth++;
    else if (c === "}" || c === ")" || c === "]" || (c === ">" && code[i - 1] !== "=")) depth--;
    else if (c === "," && depth === 0) {
      const m = new RegExp(`^\\s*(${IDENT})`).exec(code.slice(i + 1));
      if (m === null) throw new DtsBundleError(`cannot parse declarator list: ${code.slice(0, 80)}`);
      names.push(m[1]);
    }
  }
  return names;
}

/**
 * Parse one declaration file into: imports (local name -> source), exports (name -> source),
 * star re-exports, local declarations, and the statements to emit.
 */
function parseModule(root, file) {
  const key = moduleKey(root, file);
  const text = readFileSync(file, "utf8");
  const { statements, literalNewlines, code } = splitStatements(text);
  const mod = {
    key,
    file,
    imports: new Map(), // local -> { from, name: string | "*" | "default" }
    exports: new Map(), // exported -> { kind: "local", name } | { kind: "reexport", from, name } | { kind: "namespace", from }, typeOnly
    stars: [], // from
    locals: new Map(), // name -> Set of declaration kinds ("class", "interface", ...)
    body: [], // statement texts, `declare` removed and `export` added, import() as placeholders
    references: [], // triple-slash directives
    dynamicImports: [], // { offset, length, from }
  };
  const where = (s) => `${key}: ${s.text.split("\n")[0].slice(0, 100)}`;
  const source = (s, spec) => classifySpecifier(root, file, spec);

  // import("./x.js") type queries anywhere in code (not in comments or strings).
  const dynamicAt = new Map();
  const dyn = /\bimport\s*\(\s*(["'])/g;
  for (let m; (m = dyn.exec(code)) !== null; ) {
    const quote = m.index + m[0].length - 1;
    const close = text.indexOf(m[1], quote + 1);
    const closeParen = code.indexOf(")", close);
    const from = classifySpecifier(root, file, text.slice(quote + 1, close));
    if (from.node !== undefined) continue; // import("node:http").X stays as written
    const found = { offset: m.index, length: closeParen + 1 - m.index, from };
    mod.dynamicImports.push(found);
    dynamicAt.set(m.index, found);
  }
  // The statement's text from `from`, with import("./x.js") replaced by a placeholder the
  // emitter resolves, and a marker after newlines inside literals (they must not be indented).
  const render = (s, from) => {
    let out = "";
    const end = s.offset + s.text.length;
    for (let k = from; k < end; ) {
      const d = dynamicAt.get(k);
      if (d !== undefined) {
        out += `\u0001${d.from.module}\u0001`;
        k += d.length;
        continue;
      }
      out += text[k];
      if (text[k] === "\n" && literalNewlines.has(k)) out += "\u0000";
      k++;
    }
    return out;
  };

  for (const s of statements) {
    for (const line of s.leading.split("\n")) {
      const ref = /^\s*\/\/\/\s*<reference\s+(types|lib|path)\s*=\s*["']([^"']+)["']\s*\/>/.exec(line);
      if (ref === null) continue;
      if (ref[1] === "path") throw new DtsBundleError(`${key}: /// <reference path> is not supported`);
      mod.references.push(`/// <reference ${ref[1]}="${ref[2]}" />`);
    }
    const flat = s.noComments.replace(/\s+/g, " ").trim();
    if (/^import\b/.test(s.code) && !/^import\s*\(/.test(s.code)) {
      if (/^import\s+(type\s+)?\w+\s*=/.test(flat)) throw new DtsBundleError(`${where(s)}: import = require() is not supported`);
      const m = /^import (type )?(.*?) ?from ?(["'])(.*)\3 ?;?$/.exec(flat);
      if (m === null) {
        if (/^import ?["']/.test(flat)) continue; // side-effect import: no types to carry
        throw new DtsBundleError(`${where(s)}: cannot parse import`);
      }
      const from = source(s, m[4]);
      const wholeTypeOnly = m[1] !== undefined;
      let clause = m[2].trim();
      const defaultMatch = new RegExp(`^(${IDENT})\\s*(?:,\\s*|$)`).exec(clause);
      if (defaultMatch !== null && defaultMatch[1] !== "type") {
        mod.imports.set(defaultMatch[1], { from, name: "default", typeOnly: wholeTypeOnly });
        clause = clause.slice(defaultMatch[0].length);
      }
      const star = new RegExp(`^\\*\\s*as\\s+(${IDENT})$`).exec(clause);
      if (star !== null) mod.imports.set(star[1], { from, name: "*", typeOnly: wholeTypeOnly });
      else if (clause.startsWith("{") && clause.endsWith("}")) {
        for (const item of parseNameList(clause.slice(1, -1), where(s))) {
          mod.imports.set(item.alias, { from, name: item.name, typeOnly: wholeTypeOnly || item.typeOnly });
        }
      } else if (clause !== "") throw new DtsBundleError(`${where(s)}: cannot parse import clause`);
      continue;
    }
    if (/^export\b/.test(s.code)) {
      if (/^export ?(=|default\b|as namespace\b|import\b)/.test(flat)) {
        throw new DtsBundleError(`${where(s)}: unsupported export form (keel uses named exports only)`);
      }
      const list = /^export (type )?\{(.*)\} ?(?:from ?(["'])(.*)\3)? ?;?$/.exec(flat);
      if (list !== null) {
        const from = list[4] === undefined ? undefined : source(s, list[4]);
        for (const item of parseNameList(list[2], where(s))) {
          const typeOnly = list[1] !== undefined || item.typeOnly;
          if (mod.exports.has(item.alias)) throw new DtsBundleError(`${where(s)}: duplicate export ${item.alias}`);
          mod.exports.set(
            item.alias,
            from === undefined ? { kind: "local", name: item.name, typeOnly } : { kind: "reexport", from, name: item.name, typeOnly },
          );
        }
        continue;
      }
      const starExport = new RegExp(`^export (type )?\\* ?(?:as (${IDENT}) )?from ?(["'])(.*)\\3 ?;?$`).exec(flat);
      if (starExport !== null) {
        const from = source(s, starExport[4]);
        if (starExport[2] !== undefined) {
          mod.exports.set(starExport[2], { kind: "namespace", from, typeOnly: starExport[1] !== undefined });
        } else {
          if (from.node !== undefined) throw new DtsBundleError(`${where(s)}: export * from a node module is not supported`);
          mod.stars.push({ from, typeOnly: starExport[1] !== undefined });
        }
        continue;
      }
    }
    if (/^(?:export\s+)?declare\s+(?:global\b|module\s*["'])/.test(s.code)) {
      throw new DtsBundleError(`${where(s)}: unsupported: global augmentations and ambient module declarations`);
    }
    const decl = DECLARATION.exec(s.code);
    if (decl === null) throw new DtsBundleError(`${where(s)}: unsupported top-level statement`);
    const kind = decl[4];
    const names = /^(const|let|var)$/.test(kind) ? variableNames(s.code, decl[5], decl[0].length) : [decl[5]];
    for (const name of names) {
      const kinds = mod.locals.get(name) ?? new Set();
      kinds.add(kind.replace(/\s+/g, " "));
      mod.locals.set(name, kinds);
      if (decl[1] !== undefined) {
        const existing = mod.exports.get(name);
        if (existing !== undefined && !(existing.kind === "local" && existing.name === name)) {
          throw new DtsBundleError(`${where(s)}: ${name} is exported twice`);
        }
        mod.exports.set(name, { kind: "local", name, typeOnly: false });
      }
    }
    // Inside the namespace: no `declare` (already ambient), and every declaration exported so
    // other modules' aliases can reach it. Merged declarations stay consistent (all exported).
    const headLength = (decl[1] ?? "").length + (decl[2] ?? "").length;
    const leading = s.leading.replace(/^\s*\n/, "").replace(/^(\s*\/\/\/\s*<reference[^\n]*\n)+/, "");
    mod.body.push(leading + "export " + render(s, s.offset + headLength));
  }
  return mod;
}

function loadModuleGraph(root, entry) {
  const modules = new Map();
  const queue = [join(root, entry)];
  while (queue.length > 0) {
    const file = queue.shift();
    const key = moduleKey(root, file);
    if (modules.has(key)) continue;
    if (!existsSync(file)) throw new DtsBundleError(`missing declaration file ${key}`);
    const mod = parseModule(root, file);
    modules.set(key, mod);
    const deps = [
      ...[...mod.imports.values()].map((i) => i.from),
      ...[...mod.exports.values()].flatMap((e) => (e.from === undefined ? [] : [e.from])),
      ...mod.stars.map((s) => s.from),
      ...mod.dynamicImports.map((d) => d.from),
    ];
    for (const dep of deps) if (dep.module !== undefined) queue.push(join(root, dep.module));
  }
  return modules;
}

// --- resolving and emitting ---------------------------------------------------------------------

class Emitter {
  constructor(modules) {
    this.modules = modules;
    this.ids = new Map(); // module key -> identifier slug
    const used = new Set();
    for (const key of modules.keys()) {
      let slug = key.replace(/\.d\.m?ts$/, "").replace(/[^\w$]/g, "_");
      while (used.has(slug)) slug += "_";
      used.add(slug);
      this.ids.set(key, slug);
    }
    this.nodeImports = new Map(); // "spec\0kind" -> { line, ident }
    this.neededNamespaces = new Set();
    this.exportNamesCache = new Map();
  }

  implName(key) {
    return `__keel_${this.ids.get(key)}`;
  }

  nsName(key) {
    this.neededNamespaces.add(key);
    return `__keelns_${this.ids.get(key)}`;
  }

  nodeIdent(spec, kind) {
    const slug = spec.replace(/^node:/, "").replace(/[^\w$]/g, "_");
    const cacheKey = `${spec}\0${kind}`;
    let entry = this.nodeImports.get(cacheKey);
    if (entry === undefined) {
      const ident = kind === "default" ? `__node_${slug}_default` : `__node_${slug}`;
      const line = kind === "default" ? `import ${ident} from "${spec}";` : `import * as ${ident} from "${spec}";`;
      entry = { ident, line };
      this.nodeImports.set(cacheKey, entry);
    }
    return entry.ident;
  }

  /** The entity an export of `key` stands for: { expr, typeOnly }, or undefined if none/ambiguous. */
  resolveExport(key, name, seen = new Set()) {
    const mark = `${key}\0${name}`;
    if (seen.has(mark)) throw new DtsBundleError(`circular re-export of ${name} in ${key}`);
    seen.add(mark);
    const mod = this.modules.get(key);
    const entry = mod.exports.get(name);
    if (entry !== undefined) {
      const found = this.resolveEntry(mod, entry, seen);
      return found && { ...found, typeOnly: found.typeOnly || entry.typeOnly };
    }
    if (name === "default") return undefined;
    const hits = new Map();
    for (const star of mod.stars) {
      const found = this.resolveExport(star.from.module, name, new Set(seen));
      if (found !== undefined) hits.set(found.expr, { ...found, typeOnly: found.typeOnly || star.typeOnly });
    }
    // ES semantics: a name two `export *` provide differently is ambiguous and not exported.
    return hits.size === 1 ? [...hits.values()][0] : undefined;
  }

  resolveEntry(mod, entry, seen) {
    if (entry.kind === "namespace") {
      return { expr: entry.from.node !== undefined ? this.nodeIdent(entry.from.node, "*") : this.nsName(entry.from.module), typeOnly: false };
    }
    if (entry.kind === "reexport") return this.resolveSource(mod, entry.from, entry.name, seen);
    // local: a declaration of this module, or one of its imports passed on.
    const kinds = mod.locals.get(entry.name);
    if (kinds !== undefined) return { expr: `${this.implName(mod.key)}.${entry.name}`, typeOnly: false, kinds };
    const imported = mod.imports.get(entry.name);
    if (imported === undefined) throw new DtsBundleError(`${mod.key}: exports unknown name ${entry.name}`);
    const found = this.resolveSource(mod, imported.from, imported.name, seen);
    return { ...found, typeOnly: found.typeOnly || imported.typeOnly };
  }

  resolveSource(mod, from, name, seen) {
    if (from.node !== undefined) {
      if (name === "*") return { expr: this.nodeIdent(from.node, "*"), typeOnly: false };
      if (name === "default") return { expr: this.nodeIdent(from.node, "default"), typeOnly: false };
      return { expr: `${this.nodeIdent(from.node, "*")}.${name}`, typeOnly: false };
    }
    if (name === "*") return { expr: this.nsName(from.module), typeOnly: false };
    const found = this.resolveExport(from.module, name, seen);
    if (found === undefined) throw new DtsBundleError(`${mod.key}: ${from.module} does not export ${name}`);
    return found;
  }

  /** Every name `key` exports, in declaration order, stars last (ES semantics, no default). */
  exportNames(key, seen = new Set()) {
    const cached = this.exportNamesCache.get(key);
    if (cached !== undefined) return cached;
    if (seen.has(key)) return [];
    seen.add(key);
    const mod = this.modules.get(key);
    const names = [...mod.exports.keys()];
    const explicit = new Set(names);
    const fromStars = new Set();
    for (const star of mod.stars) {
      for (const name of this.exportNames(star.from.module, seen)) {
        if (name !== "default" && !explicit.has(name)) fromStars.add(name);
      }
    }
    for (const name of fromStars) if (this.resolveExport(key, name) !== undefined) names.push(name);
    this.exportNamesCache.set(key, names);
    return names;
  }

  /**
   * Names the entry's `export *` lines provide from different declarations: ES semantics drop
   * them silently (and esbuild does too), so the caller should treat them as an error.
   */
  ambiguousStarNames(key) {
    const mod = this.modules.get(key);
    const found = [];
    for (const name of new Set(mod.stars.flatMap((star) => this.exportNames(star.from.module)))) {
      if (name === "default" || mod.exports.has(name) || this.resolveExport(key, name) !== undefined) continue;
      const from = mod.stars.filter((star) => this.exportNames(star.from.module).includes(name)).map((star) => star.from.module);
      found.push({ name, from });
    }
    return found;
  }

  emitModule(mod) {
    if (mod.imports.size === 0 && mod.body.length === 0) return "";
    const lines = [];
    for (const [local, imported] of mod.imports) {
      const found = this.resolveSource(mod, imported.from, imported.name, new Set());
      lines.push(`import ${local} = ${found.expr};`);
    }
    for (const part of mod.body) {
      lines.push(part.replace(/\u0001([^\u0001]*)\u0001/g, (_, key) => this.nsName(key)));
    }
    return `declare namespace ${this.implName(mod.key)} {\n${lines.map((l) => indentLine(l)).join("\n")}\n}`;
  }

  emitNamespaceObject(key) {
    const lines = this.exportNames(key).map((name) => `    export import ${name} = ${this.resolveExport(key, name).expr};`);
    return `declare namespace __keelns_${this.ids.get(key)} {\n${lines.join("\n")}\n}`;
  }

  emit(entry, banner) {
    const parts = [];
    for (const mod of this.modules.values()) {
      const part = this.emitModule(mod);
      if (part !== "") parts.push(part);
    }
    // Export lists of modules used as namespace objects; emitting one may need another.
    const emittedNs = new Set();
    const nsParts = [];
    for (let pending = [...this.neededNamespaces]; pending.length > 0; pending = [...this.neededNamespaces].filter((k) => !emittedNs.has(k))) {
      for (const key of pending) {
        emittedNs.add(key);
        nsParts.push(this.emitNamespaceObject(key));
      }
    }
    const exportLines = [];
    const specifiers = [];
    const exported = [];
    for (const name of this.exportNames(entry.key)) {
      const found = this.resolveExport(entry.key, name);
      exported.push({ name, typeOnly: found.typeOnly, kinds: [...(found.kinds ?? [])] });
      const alias = `__keelexp_${name}`;
      exportLines.push(`import ${alias} = ${found.expr};`);
      specifiers.push(`${found.typeOnly ? "type " : ""}${alias} as ${name}`);
    }
    const references = new Set();
    for (const mod of this.modules.values()) for (const r of mod.references) references.add(r);
    if (this.nodeImports.size > 0) references.add('/// <reference types="node" />');
    const header = [];
    if (banner !== "") header.push(banner.trimEnd());
    header.push(...[...references].sort());
    header.push(...[...this.nodeImports.values()].map((e) => e.line).sort());
    const text = [
      header.join("\n"),
      ...parts,
      ...nsParts,
      exportLines.join("\n"),
      `export {\n${specifiers.map((s) => `    ${s},`).join("\n")}\n};`,
      "",
    ].join("\n\n").replace(/\n\n\n+/g, "\n\n").replace(/\n*$/, "\n");
    return { text, exports: exported, ambiguous: this.ambiguousStarNames(entry.key) };
  }
}

/** Indent a block one level; lines marked as starting inside a literal stay as they are. */
function indentLine(block) {
  return block
    .split("\n")
    .map((line) => (line.startsWith("\u0000") ? line.slice(1) : line === "" ? "" : "    " + line))
    .join("\n");
}
