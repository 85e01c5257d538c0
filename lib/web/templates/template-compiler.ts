// A parsed template becomes a tree of closures, built once: rendering walks no syntax tree and
// evaluates nothing. Values are written with the markup`` tag's text-context rule (htmlOf: strings
// escaped, SafeHtml kept, null/undefined/false empty, arrays concatenated, objects refused).
// A URL attribute value holding values is rendered as one group, from just after its opening
// quote to its closing quote (text, values and blocks alike), and checked whole: the literal
// text and every value together, as the browser reads them.
import { htmlOf, isUnsafeUrlHtml, UNSAFE_URL } from "../html/index.js";
import type { UrlBoundary } from "./template-contexts.js";
import type { TemplateNode } from "./template-parser.js";
import { lookup, type Frame, type Scope } from "./template-path.js";

/** Render a template's nodes with a scope; `depth` counts partials and layouts entered. */
export type RenderFn = (scope: Scope, depth: number) => string;

/** Finds a partial by the name a template wrote (the engine knows the directory and the cache). */
export type PartialResolver = (name: string) => RenderFn;

/** Partials and layouts nested deeper than this are a recursion that would never end. */
export const MAX_DEPTH = 64;

const keepAsIs = (s: string): string => s;

/** Errors raised while rendering name the template and line; an inner template's errors pass through. */
function located(err: unknown, file: string, line: number): Error {
  if (err instanceof Error && err.message.startsWith("templates: ")) return err;
  const message = err instanceof Error ? err.message : String(err);
  const wrapped = err instanceof TypeError || !(err instanceof Error) ? new TypeError(`templates: ${file}:${line}: ${message}`) : new Error(`templates: ${file}:${line}: ${message}`);
  (wrapped as Error & { cause?: unknown }).cause = err;
  return wrapped;
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

/** What compiling one file needs: its name (for messages), the partial lookup, the URL values. */
export interface CompileInput {
  readonly file: string;
  readonly partial: PartialResolver;
  /** Text nodes where a checked URL attribute value starts or ends (checkContexts). */
  readonly urls: ReadonlyMap<TemplateNode, readonly UrlBoundary[]>;
}

function concat(parts: readonly RenderFn[]): RenderFn {
  if (parts.length === 1) return parts[0]!;
  return (scope, depth) => {
    let out = "";
    for (let i = 0; i < parts.length; i++) out += parts[i]!(scope, depth);
    return out;
  };
}

function literal(text: string): RenderFn {
  return () => text;
}

/** The parts of a URL attribute value, rendered together and replaced whole when unsafe. */
function checkedUrl(attribute: string, parts: readonly RenderFn[]): RenderFn {
  const value = concat(parts.length === 0 ? [literal("")] : parts);
  return (scope, depth) => {
    const html = value(scope, depth);
    return isUnsafeUrlHtml(attribute, html) ? UNSAFE_URL : html;
  };
}

export function compileNodes(nodes: readonly TemplateNode[], input: CompileInput): RenderFn {
  const parts: RenderFn[] = [];
  // The parts of the URL value open in this list, if any (checkContexts makes sure that a value
  // ends in the list it starts in, and values do not nest).
  let url: { attribute: string; parts: RenderFn[] } | null = null;
  const add = (part: RenderFn): void => {
    (url === null ? parts : url.parts).push(part);
  };
  for (const node of nodes) {
    const boundaries = input.urls.get(node);
    if (boundaries === undefined || node.type !== "text") {
      add(compileNode(node, input));
      continue;
    }
    let from = 0;
    for (const boundary of boundaries) {
      if (boundary.offset > from) add(literal(node.text.slice(from, boundary.offset)));
      from = boundary.offset;
      if (boundary.edge === "start") url = { attribute: boundary.attribute, parts: [] };
      else {
        const done: { attribute: string; parts: RenderFn[] } | null = url;
        if (done === null) throw new Error(`templates: ${input.file}: internal error: a ${boundary.attribute} value ends where none started`);
        url = null;
        add(checkedUrl(done.attribute, done.parts));
      }
    }
    if (from < node.text.length) add(literal(node.text.slice(from)));
  }
  if (url !== null) throw new Error(`templates: ${input.file}: internal error: a URL value is not closed in its block`);
  if (parts.length === 0) return literal("");
  return concat(parts);
}

function compileNode(node: TemplateNode, input: CompileInput): RenderFn {
  const { file, partial } = input;
  switch (node.type) {
    case "text":
      return literal(node.text);
    case "value": {
      const { path, line } = node;
      const escape = node.escape ? undefined : keepAsIs;
      return (scope) => {
        try {
          return htmlOf(lookup(scope, path), escape);
        } catch (err) {
          throw located(err, file, line);
        }
      };
    }
    case "if": {
      const { path } = node;
      const then = compileNodes(node.then, input);
      const otherwise = compileNodes(node.otherwise, input);
      return (scope, depth) => (truthy(lookup(scope, path)) ? then(scope, depth) : otherwise(scope, depth));
    }
    case "each": {
      const { path, as, line } = node;
      const body = compileNodes(node.body, input);
      const otherwise = compileNodes(node.otherwise, input);
      return (scope, depth) => {
        const items = lookup(scope, path);
        if (items === undefined || items === null) return otherwise(scope, depth);
        if (!Array.isArray(items)) throw located(new TypeError(`{{#each ${path.join(".")}}} needs an array, got ${typeof items}`), file, line);
        if (items.length === 0) return otherwise(scope, depth);
        let out = "";
        for (let i = 0; i < items.length; i++) {
          const frame: Frame = { name: as, value: items[i], index: i, count: items.length, parent: scope.frame };
          out += body({ data: scope.data, frame }, depth);
        }
        return out;
      };
    }
    case "partial": {
      const { name, line } = node;
      return (scope, depth) => {
        if (depth >= MAX_DEPTH) throw located(new Error(`partials nested deeper than ${MAX_DEPTH} (does "${name}" include itself?)`), file, line);
        let render: RenderFn;
        try {
          render = partial(name);
        } catch (err) {
          throw located(err, file, line);
        }
        return render(scope, depth + 1);
      };
    }
  }
}
