// Where each {{ value }}, {{{ value }}} and {{> partial }} of a template lands in the HTML, found at
// compile time with the same scanner as the markup`` tag (scanHtml): the literal text is read in
// document order, both branches of an {{#if}} one after the other, as Go's html/template does it
// without its branch merging. Then, each a SyntaxError naming file and line:
// - {{ value }} inside <script>/<style>, an on*, style or srcdoc attribute, a comment or a tag or
//   attribute name: escaping cannot make text safe there; write {{{ value }}} with HTML you
//   produced yourself (JSON for a script, say) if you mean it;
// - {{ value }} or {{{ value }}} as an unquoted attribute value: quote the attribute;
// - {{{ value }}} in any attribute value: {{ value }} is the way (it keeps SafeHtml as it is, and
//   a raw value would slip past the URL check);
// - {{> partial }} anywhere but in text: a partial is compiled on its own, as text, so in an
//   attribute or a script its values would be escaped for the wrong place;
// - a template that ends anywhere but in text (inside a tag, an attribute value, a comment or a
//   script): what follows it in the page including it would be read in the wrong place;
// - a URL attribute value holding values that starts and ends in different {{#if}}/{{#each}}
//   blocks (it could not be checked as one value).
// A URL attribute value (href, src, action, ...) holding values is checked whole when rendered:
// the compiler groups it from its opening to its closing quote (see UrlBoundary) and writes
// about:invalid#unsafe instead when the rendered value is a javascript:, vbscript: or data: URL.
import { scanHtml, type HtmlContext } from "../../core/markup.js";
import type { TemplateNode } from "./template-parser.js";

/** Inside a text node: where a checked URL attribute value starts (after its quote) or ends. */
export interface UrlBoundary {
  readonly offset: number;
  readonly edge: "start" | "end";
  readonly attribute: string;
}
type ValueNode = Extract<TemplateNode, { type: "value" }>;
type PartialNode = Extract<TemplateNode, { type: "partial" }>;
type TextNode = Extract<TemplateNode, { type: "text" }>;

/** A text node's place in the scanned literals, and the node list (block) holding it. */
interface TextPlace {
  readonly node: TextNode;
  readonly literal: number;
  readonly offset: number;
  readonly block: readonly TemplateNode[];
}

/**
 * Check where each value and partial lands and where the template ends (`lastLine` is its last
 * line); return the URL value boundaries of the text nodes, for the compiler.
 */
export function checkContexts(nodes: readonly TemplateNode[], file: string, lastLine: number): Map<TemplateNode, UrlBoundary[]> {
  const literals: string[] = [""];
  const gaps: Array<ValueNode | PartialNode> = [];
  const texts: TextPlace[] = [];
  const walk = (list: readonly TemplateNode[]): void => {
    for (const node of list) {
      switch (node.type) {
        case "text":
          texts.push({ node, literal: literals.length - 1, offset: literals[literals.length - 1]!.length, block: list });
          literals[literals.length - 1] += node.text;
          break;
        case "value":
        case "partial":
          gaps.push(node);
          literals.push("");
          break;
        case "if":
          walk(node.then);
          walk(node.otherwise);
          break;
        case "each":
          walk(node.body);
          walk(node.otherwise);
          break;
      }
    }
  };
  walk(nodes);
  // One more gap at the very end: the context the template ends in.
  literals.push("");
  const { holes, urlValues } = scanHtml(literals);
  const fail = (line: number, message: string): never => {
    throw new SyntaxError(`templates: ${file}:${line}: ${message}`);
  };
  for (let i = 0; i < gaps.length; i++) checkGap(gaps[i]!, holes[i]!, fail);
  const end = holes[gaps.length]!;
  if (end.kind !== "text") fail(lastLine, `the template ends ${end.where}: end it in text (close the tag, attribute value, comment or script), so that what follows it, or the page including it, is read as text`);

  const boundaries = new Map<TemplateNode, UrlBoundary[]>();
  for (let u = 0; u < urlValues.length; u++) {
    const span = urlValues[u]!;
    const line = (gaps[holes.findIndex((hole) => hole.url === u)] as ValueNode).line;
    // The opening quote is the character before the start; the closing quote is at the end.
    const start = texts.find((t) => t.literal === span.startLiteral && t.offset < span.startOffset && span.startOffset <= t.offset + t.node.text.length);
    const close = texts.find((t) => t.literal === span.endLiteral && t.offset <= span.endOffset && span.endOffset < t.offset + t.node.text.length);
    if (start === undefined || close === undefined) throw new Error(`templates: ${file}:${line}: internal error: the ${span.attribute} value was not found in the text`);
    if (start.block !== close.block) {
      fail(line, `the ${span.attribute} attribute value starts and ends in different {{#if}}/{{#each}} blocks: write the whole value inside one block`);
    }
    addBoundary(boundaries, start.node, { offset: span.startOffset - start.offset, edge: "start", attribute: span.attribute });
    addBoundary(boundaries, close.node, { offset: span.endOffset - close.offset, edge: "end", attribute: span.attribute });
  }
  return boundaries;
}

function checkGap(node: ValueNode | PartialNode, context: HtmlContext, fail: (line: number, message: string) => never): void {
  if (node.type === "partial") {
    if (context.kind !== "text") fail(node.line, `{{> ${node.name} }} cannot be ${context.where}: a partial is compiled as text, so it can only be included in text`);
    return;
  }
  const path = node.path.join(".");
  if (node.escape) {
    const written = `{{ ${path} }}`;
    if (context.kind === "trusted") fail(node.line, `${written} cannot be ${context.where}: escaping does not make text safe there (use {{{ }}} with HTML you built yourself)`);
    if (context.kind === "unquoted") fail(node.line, `${written} is an unquoted attribute value: put the attribute value in quotes`);
    return;
  }
  const written = `{{{ ${path} }}}`;
  if (context.kind === "unquoted") fail(node.line, `${written} is an unquoted attribute value: put the attribute value in quotes, and write {{ ${path} }}`);
  if (context.kind === "quoted") fail(node.line, `${written} cannot be in an attribute value: write {{ ${path} }} (it escapes text, keeps SafeHtml as it is and checks URLs)`);
}

function addBoundary(boundaries: Map<TemplateNode, UrlBoundary[]>, node: TemplateNode, boundary: UrlBoundary): void {
  const list = boundaries.get(node);
  if (list === undefined) boundaries.set(node, [boundary]);
  else {
    list.push(boundary);
    list.sort((a, b) => a.offset - b.offset);
  }
}
