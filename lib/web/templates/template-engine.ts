// The template engine: names to files, files compiled once and cached, layouts, and dev reload.
// Rendering is synchronous: a template is read and compiled on first use (readFileSync, once per
// file in production), after which rendering touches no file. In dev mode each use of a template
// (page, partial or layout) stats its file and recompiles it when the mtime or size changed; no
// watcher or timer is left running, so nothing keeps the process alive.
import { readFileSync, statSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { html, type Reply } from "../../index.js";
import { SafeHtml } from "../html/index.js";
import { isProductionEnv } from "../../plugin.js";
import { compileNodes, MAX_DEPTH, type RenderFn } from "./template-compiler.js";
import { checkContexts } from "./template-contexts.js";
import { parseTemplate } from "./template-parser.js";
import type { Frame, Scope } from "./template-path.js";
import { templateFile } from "./template-names.js";

export interface TemplatesOptions {
  /** The directory templates are read from; names are paths inside it. */
  dir: string;
  /** File extension added to names that lack it (default ".html"). */
  extension?: string;
  /** Recompile a template whose file changed (default: KEEL_ENV is not production). */
  dev?: boolean;
}

interface CompiledTemplate {
  readonly render: RenderFn;
  readonly layout: string | null;
  readonly mtimeMs: number;
  readonly size: number;
}

/** Data a template reads: its own properties (a plain object, usually). */
export type TemplateData = object;

export class TemplateEngine {
  readonly dir: string;
  readonly extension: string;
  readonly dev: boolean;
  readonly #cache = new Map<string, CompiledTemplate>();
  /** Partial and layout names to the template they resolved to (production only). */
  readonly #resolved = new Map<string, string>();
  #compiles = 0;

  constructor(options: TemplatesOptions) {
    if (typeof options?.dir !== "string" || options.dir === "") throw new TypeError("templates: `dir` is required");
    this.dir = resolve(options.dir);
    this.extension = options.extension ?? ".html";
    if (!/^\.[\w.-]+$/.test(this.extension)) throw new TypeError(`templates: the extension ${JSON.stringify(this.extension)} must start with a dot`);
    this.dev = options.dev ?? !isProductionEnv(process.env["KEEL_ENV"]);
  }

  /** How many times a template file was compiled (for tests and diagnostics). */
  get compiles(): number {
    return this.#compiles;
  }

  /** Render a template (and its layout, if it names one) to HTML. */
  render(name: string, data: TemplateData = {}): SafeHtml {
    return new SafeHtml(this.#renderWithLayout(name, data, null, 0));
  }

  /** Render a template into an HTML reply (`text/html; charset=utf-8`). */
  page<const S extends number = 200>(name: string, data?: TemplateData, status: S = 200 as S): Reply<S, string> {
    return html(this.render(name, data).toString(), status);
  }

  /** Forget every compiled template (they are compiled again on next use). */
  clear(): void {
    this.#cache.clear();
    this.#resolved.clear();
  }

  #renderWithLayout(name: string, data: TemplateData, frame: Frame | null, depth: number): string {
    const template = this.#load(name);
    const scope: Scope = { data, frame };
    const body = template.render(scope, depth);
    if (template.layout === null) return body;
    if (depth >= MAX_DEPTH) throw new Error(`templates: layouts nested deeper than ${MAX_DEPTH} (does "${template.layout}" use itself?)`);
    let layout: string;
    try {
      layout = this.#resolve(template.layout, "layouts", "layout", name);
    } catch (err) {
      throw new Error(`templates: ${(err as Error).message}`);
    }
    // The layout sees the same data, plus `body`: the page, already HTML.
    const bodyFrame: Frame = { name: "body", value: new SafeHtml(body), index: 0, count: -1, parent: null };
    return this.#renderWithLayout(layout, data, bodyFrame, depth + 1);
  }

  /** A template by name, compiled once (and again in dev mode when its file changed). */
  #load(name: string): CompiledTemplate {
    const file = templateFile(this.dir, name, this.extension);
    const cached = this.#cache.get(file);
    if (cached !== undefined && !this.dev) return cached;
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) throw new Error(`templates: template "${name}" not found (${file})`);
    if (cached !== undefined && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    const source = readFileSync(file, "utf8");
    const label = relative(this.dir, file).split(sep).join("/");
    const parsed = parseTemplate(source, label);
    const lastLine = source.split("\n").length;
    const urls = checkContexts(parsed.nodes, label, lastLine);
    this.#compiles++;
    const compiled: CompiledTemplate = {
      render: compileNodes(parsed.nodes, { file: label, partial: (partial) => this.#partial(partial, name), urls }),
      layout: parsed.layout,
      mtimeMs: stat.mtimeMs,
      size: stat.size,
    };
    this.#cache.set(file, compiled);
    return compiled;
  }

  #partial(name: string, from: string): RenderFn {
    return this.#load(this.#resolve(name, "partials", "partial", from)).render;
  }

  /** `<folder>/<name>` when that file exists, else `<name>`; a name that is neither throws. */
  #resolve(name: string, folder: string, what: string, from: string): string {
    const key = `${folder}\0${name}`;
    const known = this.dev ? undefined : this.#resolved.get(key);
    if (known !== undefined) return known;
    for (const candidate of [`${folder}/${name}`, name]) {
      if (statSync(templateFile(this.dir, candidate, this.extension), { throwIfNoEntry: false })?.isFile() === true) {
        if (!this.dev) this.#resolved.set(key, candidate);
        return candidate;
      }
    }
    throw new Error(`${what} "${name}" used by "${from}" not found (looked for ${folder}/${name}${this.extension} and ${name}${this.extension})`);
  }
}

/**
 * A template engine over a directory of HTML files, compiled once and rendered with escaping.
 *
 * @example
 * const views = templates({ dir: "views" });
 * route.get("/", [], () => views.page("home", { user: { name: "Ada" } }));
 *
 * @see docs/features/web.md
 */
export function templates(options: TemplatesOptions): TemplateEngine {
  return new TemplateEngine(options);
}
