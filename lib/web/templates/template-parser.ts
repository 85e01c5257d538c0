// The template syntax, parsed into a tree (the syntax itself is documented in index.ts).
// Errors are SyntaxErrors naming the file and line: "templates: pages/home.html:3: ...".
import { parsePath, type TemplatePath } from "./template-path.js";
import { checkTemplateName } from "./template-names.js";

export type TemplateNode =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "value"; readonly path: TemplatePath; readonly escape: boolean; readonly line: number }
  | { readonly type: "if"; readonly path: TemplatePath; readonly then: TemplateNode[]; readonly otherwise: TemplateNode[]; readonly line: number }
  | { readonly type: "each"; readonly path: TemplatePath; readonly as: string; readonly body: TemplateNode[]; readonly otherwise: TemplateNode[]; readonly line: number }
  | { readonly type: "partial"; readonly name: string; readonly line: number };

export interface ParsedTemplate {
  readonly nodes: TemplateNode[];
  /** The layout named by a `{{! layout: name }}` header, or null. */
  readonly layout: string | null;
}

/** A block being parsed: where its nodes go, and where `{{else}}` moves them. */
interface OpenBlock {
  readonly kind: "if" | "each";
  readonly line: number;
  nodes: TemplateNode[];
  readonly otherwise: TemplateNode[];
  seenElse: boolean;
}

const NAME = /^[A-Za-z_$][\w$]*$/;
const LAYOUT_HEADER = /^!\s*layout:\s*(\S+)\s*$/;
const PARTIAL_NAME = /^[\w./-]+$/;

export function parseTemplate(source: string, file: string): ParsedTemplate {
  const root: TemplateNode[] = [];
  const stack: OpenBlock[] = [];
  let nodes = root;
  let layout: string | null = null;
  let line = 1;
  let pos = 0;
  let text = "";

  const fail = (at: number, message: string): never => {
    throw new SyntaxError(`templates: ${file}:${at}: ${message}`);
  };
  const flush = (): void => {
    if (text !== "") nodes.push({ type: "text", text });
    text = "";
  };
  const countLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) if (source.charCodeAt(i) === 10) line++;
  };
  const path = (expression: string, at: number): TemplatePath => {
    const parsed = parsePath(expression);
    return typeof parsed === "string" ? fail(at, parsed) : parsed;
  };

  while (pos < source.length) {
    const open = source.indexOf("{{", pos);
    if (open < 0) {
      text += source.slice(pos);
      countLines(pos, source.length);
      break;
    }
    // `\{{` writes a literal `{{`.
    if (open > 0 && source.charCodeAt(open - 1) === 92 /* \ */) {
      text += source.slice(pos, open - 1) + "{{";
      countLines(pos, open + 2);
      pos = open + 2;
      continue;
    }
    text += source.slice(pos, open);
    countLines(pos, open);
    const at = line;
    const triple = source.startsWith("{{{", open);
    const longComment = source.startsWith("{{!--", open);
    const closer = triple ? "}}}" : longComment ? "--}}" : "}}";
    const close = source.indexOf(closer, open + (triple ? 3 : 2));
    if (close < 0) fail(at, `"${triple ? "{{{" : "{{"}" is never closed with "${closer}"`);
    const inner = source.slice(open + (triple ? 3 : 2), close).trim();
    countLines(open, close + closer.length);
    pos = close + closer.length;

    if (triple) {
      flush();
      nodes.push({ type: "value", path: path(inner, at), escape: false, line: at });
      continue;
    }
    if (inner.startsWith("!")) {
      const header = LAYOUT_HEADER.exec(inner);
      if (header !== null) {
        if (root.length > 0 || stack.length > 0 || text.trim() !== "" || layout !== null) fail(at, "a layout header must be the first thing in the template");
        layout = checkName(header[1]!, at, "layout", fail);
        text = "";
        // The header's own line end is not part of the page.
        if (source.startsWith("\r\n", pos)) pos += 2;
        else if (source.startsWith("\n", pos)) pos += 1;
        if (pos > close + 2) line++;
      }
      continue;
    }
    if (inner.startsWith("#")) {
      const [keyword, ...rest] = inner.slice(1).trim().split(/\s+/);
      flush();
      if (keyword === "if") {
        if (rest.length !== 1) fail(at, "{{#if}} takes one path: {{#if user.admin}}");
        const block: OpenBlock = { kind: "if", line: at, nodes: [], otherwise: [], seenElse: false };
        const then = block.nodes;
        nodes.push({ type: "if", path: path(rest[0]!, at), then, otherwise: block.otherwise, line: at });
        stack.push(block);
        nodes = block.nodes;
      } else if (keyword === "each") {
        if (rest.length !== 3 || rest[1] !== "as") fail(at, "{{#each}} is written {{#each items as item}}");
        if (!NAME.test(rest[2]!) || rest[2] === "__proto__") fail(at, `"${rest[2]}" is not a name for the loop variable`);
        const block: OpenBlock = { kind: "each", line: at, nodes: [], otherwise: [], seenElse: false };
        nodes.push({ type: "each", path: path(rest[0]!, at), as: rest[2]!, body: block.nodes, otherwise: block.otherwise, line: at });
        stack.push(block);
        nodes = block.nodes;
      } else fail(at, `unknown block "{{#${keyword ?? ""}}}" (blocks are #if and #each)`);
      continue;
    }
    if (inner.startsWith("/")) {
      const keyword = inner.slice(1).trim();
      const block = stack.pop();
      if (block === undefined) fail(at, `"{{/${keyword}}}" closes nothing`);
      else if (block.kind !== keyword) fail(at, `"{{/${keyword}}}" does not close the {{#${block.kind}}} opened at line ${block.line}`);
      flush();
      nodes = stack.length > 0 ? stack[stack.length - 1]!.nodes : root;
      continue;
    }
    if (inner === "else") {
      const block = stack[stack.length - 1];
      if (block === undefined) fail(at, "{{else}} outside {{#if}} or {{#each}}");
      else {
        if (block.seenElse) fail(at, `a second {{else}} in the {{#${block.kind}}} opened at line ${block.line}`);
        flush();
        block.seenElse = true;
        block.nodes = block.otherwise;
        nodes = block.otherwise;
      }
      continue;
    }
    if (inner.startsWith(">")) {
      flush();
      nodes.push({ type: "partial", name: checkName(inner.slice(1).trim(), at, "partial", fail), line: at });
      continue;
    }
    flush();
    nodes.push({ type: "value", path: path(inner, at), escape: true, line: at });
  }
  flush();
  const unclosed = stack.pop();
  if (unclosed !== undefined) fail(unclosed.line, `{{#${unclosed.kind}}} is never closed with {{/${unclosed.kind}}}`);
  return { nodes: root, layout };
}

function checkName(name: string, at: number, what: string, fail: (at: number, message: string) => never): string {
  if (!PARTIAL_NAME.test(name)) fail(at, `"${name}" is not a ${what} name`);
  const problem = checkTemplateName(name);
  if (problem !== null) fail(at, `the ${what} name "${name}" ${problem}`);
  return name;
}
