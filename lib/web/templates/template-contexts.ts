// Where each {{ value }}, {{{ value }}} and {{> partial }} of a template lands in the HTML, found at
// compile time with the markup`` tag's scanner, followed through the blocks as Go's html/template
// does: each branch of an {{#if}} is scanned from the state the {{#if}} starts in, and so is an
// {{#each}} body (again from where it ends, until that adds nothing new: a loop body ending inside
// the tag it started in, say). Then, each a SyntaxError naming file and line:
// - an {{#if}} whose branches end in different contexts (a missing {{else}} is an empty branch),
//   or an {{#each}} whose body, or {{else}} part, ends in another context than it starts in: what
//   follows would be read in a place that depends on the data (`{{#each xs as x}}<a title="{{ x }}
//   {{/each}}">` puts the second item outside the quotes). Ending elsewhere inside the same tag is
//   the same context (`<li{{#if @first}} class="first"{{/if}}>`); the scan then goes on from every
//   state the branches end in, and a value after them must be acceptable in each;
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
// When the branches before it leave it open whether a value is a URL one (`<p {{#if c}}x{{/if}}
// href="{{ u }}">` writes xhref or href), it is checked as one.
import { describeHtmlState, htmlAfterValue, htmlContext, htmlContextKey, HTML_TEXT, scanHtmlText, type HtmlContext, type HtmlState } from "../html/index.js";
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
type IfNode = Extract<TemplateNode, { type: "if" }>;
type EachNode = Extract<TemplateNode, { type: "each" }>;

/** A place in a text node, and the node list (block) holding the node. */
interface TextPlace {
  readonly node: TextNode;
  readonly offset: number;
  readonly list: readonly TemplateNode[];
}

/** A URL attribute value met by the scan: where it starts and ends, and the first value in it. */
interface UrlSpan {
  /** Unique in one template (1, 2, ...), for telling positions apart. */
  readonly id: number;
  readonly attribute: string;
  readonly start: TextPlace;
  end: TextPlace | null;
  /** Line of the first value written in it; 0 while it holds none (then it is not checked). */
  line: number;
  /** The scan found it ending at two places (depending on the data). */
  endsTwice: boolean;
}

/** One way the scan can be at a point of the template: its state, and the URL value it is in. */
interface Position {
  readonly state: HtmlState;
  readonly url: UrlSpan | null;
}

type Fail = (line: number, message: string) => never;

/** Loop bodies are scanned again from where they end until nothing new comes out, at most this often. */
const MAX_LOOP_ROUNDS = 4;

/**
 * Check where each value and partial lands, that blocks end where they start and where the
 * template ends (`lastLine` is its last line); return the URL value boundaries of the text nodes,
 * for the compiler.
 */
export function checkContexts(nodes: readonly TemplateNode[], file: string, lastLine: number): Map<TemplateNode, UrlBoundary[]> {
  const fail: Fail = (line, message) => {
    throw new SyntaxError(`templates: ${file}:${line}: ${message}`);
  };
  const walker = new ContextWalker(fail);
  const end = walker.walk(nodes, [{ state: HTML_TEXT, url: null }]);
  // In text, or in the text of a <title> or <textarea>: what follows is read as text as well.
  const open = end.find((p) => htmlContext(p.state).kind !== "text");
  if (open !== undefined) {
    fail(lastLine, `the template ends ${describeHtmlState(open.state)}: end it in text (close the tag, attribute value, comment or script), so that what follows it, or the page including it, is read as text`);
  }
  return walker.boundaries();
}

class ContextWalker {
  readonly #fail: Fail;
  /** URL values by the text node and offset they start at: the scan meets each once, however often it passes. */
  readonly #spans = new Map<TextNode, Map<number, UrlSpan>>();
  #spanCount = 0;

  constructor(fail: Fail) {
    this.#fail = fail;
  }

  /** The positions after `list`, scanned from each of `from`. */
  walk(list: readonly TemplateNode[], from: readonly Position[]): Position[] {
    let at = [...from];
    for (const node of list) {
      switch (node.type) {
        case "text":
          at = distinct(at.map((p) => this.#text(node, list, p)));
          break;
        case "value":
        case "partial":
          this.#value(node, at);
          at = distinct(at.map((p) => ({ state: htmlAfterValue(p.state), url: p.url })));
          break;
        case "if":
          at = this.#if(node, at);
          break;
        case "each":
          at = this.#each(node, at);
          break;
      }
    }
    return at;
  }

  #text(node: TextNode, list: readonly TemplateNode[], from: Position): Position {
    const { end, urlEdges } = scanHtmlText(from.state, node.text);
    let url = from.url;
    for (const edge of urlEdges) {
      if (edge.edge === "start") {
        url = this.#span(edge.attribute, { node, offset: edge.offset, list });
        continue;
      }
      if (url === null) throw new Error(`templates: internal error: a ${edge.attribute} value ends where none started`);
      const place: TextPlace = { node, offset: edge.offset, list };
      if (url.end === null) url.end = place;
      else if (url.end.node !== node || url.end.offset !== edge.offset) url.endsTwice = true;
      url = null;
    }
    return { state: end, url };
  }

  #span(attribute: string, start: TextPlace): UrlSpan {
    let byOffset = this.#spans.get(start.node);
    if (byOffset === undefined) this.#spans.set(start.node, (byOffset = new Map()));
    let span = byOffset.get(start.offset);
    if (span === undefined) byOffset.set(start.offset, (span = { id: ++this.#spanCount, attribute, start, end: null, line: 0, endsTwice: false }));
    return span;
  }

  /** A value or partial must be acceptable in every context it can land in. */
  #value(node: ValueNode | PartialNode, at: readonly Position[]): void {
    const seen = new Set<string>();
    for (const p of at) {
      const context = htmlContext(p.state);
      const key = `${context.kind} ${context.where}`;
      if (!seen.has(key)) {
        seen.add(key);
        checkGap(node, context, this.#fail);
      }
      if (context.url !== null && p.url !== null && p.url.line === 0) p.url.line = node.line;
    }
  }

  #if(node: IfNode, at: readonly Position[]): Position[] {
    const then = this.walk(node.then, at);
    const otherwise = this.walk(node.otherwise, at);
    const written = `{{#if ${node.path.join(".")}}}`;
    const clash = differing(then, otherwise);
    if (clash !== null) {
      const [a, b] = [describeHtmlState(clash.first), describeHtmlState(clash.second)];
      const cases = clash.across ? `${a} when ${node.path.join(".")} is true, and ${b} when it is not` : `${a} or ${b}`;
      this.#fail(node.line, `${written} branches end in different contexts: ${cases}. End both branches in the same place (close in a branch the tag, attribute value, comment or element it opens), so that what follows is read the same way after either`);
    }
    return distinct([...then, ...otherwise]);
  }

  #each(node: EachNode, at: readonly Position[]): Position[] {
    const written = `{{#each ${node.path.join(".")} as ${node.as}}}`;
    const advice = "End it where it starts (close in it the tag, attribute value, comment or element it opens), so that each item, and what follows the loop, is read the same way";
    // The body runs from where the loop starts, then from where it ends, again and again.
    let entry = distinct([...at]);
    for (let round = 0; ; round++) {
      const out = this.walk(node.body, entry);
      const clash = differing(entry, out);
      if (clash !== null) this.#fail(node.line, `${written} body ends ${describeHtmlState(clash.second)} but starts ${describeHtmlState(clash.first)}. ${advice}`);
      const next = distinct([...entry, ...out]);
      if (next.length === entry.length) break;
      if (round + 1 >= MAX_LOOP_ROUNDS) this.#fail(node.line, `${written} body ends in a different place each time it runs (${describeHtmlState(out[0]!.state)}). ${advice}`);
      entry = next;
    }
    const otherwise = this.walk(node.otherwise, at);
    const clash = differing(entry, otherwise);
    if (clash !== null) this.#fail(node.line, `${written} {{else}} part ends ${describeHtmlState(clash.second)} but the loop body starts and ends ${describeHtmlState(clash.first)}. ${advice}`);
    return distinct([...entry, ...otherwise]);
  }

  /** The start and end of each URL value holding values, for the compiler. */
  boundaries(): Map<TemplateNode, UrlBoundary[]> {
    const boundaries = new Map<TemplateNode, UrlBoundary[]>();
    const spans: UrlSpan[] = [];
    for (const byOffset of this.#spans.values()) for (const span of byOffset.values()) if (span.line > 0) spans.push(span);
    for (const span of spans) {
      const { start, end } = span;
      // checkContexts refuses a template that ends inside a value, so every value ends.
      if (end === null) throw new Error(`templates: internal error: the ${span.attribute} value does not end`);
      if (span.endsTwice) this.#fail(span.line, `the ${span.attribute} attribute value ends in different places depending on the data: write the whole value inside one block`);
      if (start.list !== end.list) this.#fail(span.line, `the ${span.attribute} attribute value starts and ends in different {{#if}}/{{#each}} blocks: write the whole value inside one block`);
      addBoundary(boundaries, start.node, { offset: start.offset, edge: "start", attribute: span.attribute });
      addBoundary(boundaries, end.node, { offset: end.offset, edge: "end", attribute: span.attribute });
    }
    // The compiler groups each value between its boundaries in one node list: they must alternate.
    for (const span of spans) {
      let open = false;
      for (const node of span.start.list) {
        for (const boundary of boundaries.get(node) ?? []) {
          if ((boundary.edge === "start") === open) this.#fail(span.line, `the ${span.attribute} attribute value overlaps another URL value depending on the data: write the whole value inside one block`);
          open = boundary.edge === "start";
        }
      }
    }
    return boundaries;
  }
}

/** A position's identity: its state field by field, and the URL value it is in. */
function positionKey(p: Position): string {
  const s = p.state;
  return `${s.mode}|${s.tag}|${s.closing ? 1 : 0}|${s.attribute}|${s.count}|${p.url === null ? 0 : p.url.id}`;
}

/** The positions without repeats. */
function distinct(positions: readonly Position[]): Position[] {
  const seen = new Set<string>();
  const out: Position[] = [];
  for (const p of positions) {
    const key = positionKey(p);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(p);
    }
  }
  return out;
}

/**
 * Two states in different contexts: one from `a` and one from `b` (across: true) or, failing
 * that, two from the same list; null when all agree.
 */
function differing(a: readonly Position[], b: readonly Position[]): { first: HtmlState; second: HtmlState; across: boolean } | null {
  for (const x of a) for (const y of b) if (htmlContextKey(x.state) !== htmlContextKey(y.state)) return { first: x.state, second: y.state, across: true };
  for (const list of [a, b]) {
    const other = list.find((p) => htmlContextKey(p.state) !== htmlContextKey(list[0]!.state));
    if (other !== undefined) return { first: list[0]!.state, second: other.state, across: false };
  }
  return null;
}

function checkGap(node: ValueNode | PartialNode, context: HtmlContext, fail: Fail): void {
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
