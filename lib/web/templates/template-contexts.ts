// Where each {{ value }} of a template lands in the HTML, found at compile time with the same
// scanner as the markup`` tag (htmlContexts): the literal text is read in document order, both
// branches of an {{#if}} one after the other, as Go's html/template does it without its branch
// merging. Then:
// - {{ value }} inside <script>/<style>, an on* attribute, a comment or a tag or attribute name
//   is a SyntaxError: escaping cannot make text safe there; write {{{ value }}} with HTML you
//   produced yourself (JSON for a script, say) if you mean it;
// - {{ value }} as an unquoted attribute value is a SyntaxError: quote the attribute;
// - {{ value }} in a URL attribute (href, src, action, ...) is scheme-checked when rendered: a
//   javascript:, vbscript: or data: URL is written as about:invalid#unsafe.
// {{{ value }}} is trusted and not checked. A partial is scanned on its own, from text context.
import { htmlContexts } from "../../core/markup.js";
import type { TemplateNode } from "./template-parser.js";

/** The URL attribute a value node writes into (checked at render time). */
export interface UrlSlot {
  readonly attribute: string;
  readonly prefix: string;
}
type ValueNode = Extract<TemplateNode, { type: "value" }>;

/** Check where each value node lands; return the URL slots of those in URL attributes. */
export function checkContexts(nodes: readonly TemplateNode[], file: string): Map<TemplateNode, UrlSlot> {
  const literals: string[] = [""];
  const values: ValueNode[] = [];
  const walk = (list: readonly TemplateNode[]): void => {
    for (const node of list) {
      switch (node.type) {
        case "text":
          literals[literals.length - 1] += node.text;
          break;
        case "value":
          values.push(node);
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
        case "partial":
          break;
      }
    }
  };
  walk(nodes);
  const slots = new Map<TemplateNode, UrlSlot>();
  if (values.length === 0) return slots;
  const contexts = htmlContexts(literals);
  for (let i = 0; i < values.length; i++) {
    const node = values[i]!;
    const context = contexts[i]!;
    if (!node.escape) continue;
    const written = `{{ ${node.path.join(".")} }}`;
    if (context.kind === "trusted") {
      throw new SyntaxError(`templates: ${file}:${node.line}: ${written} cannot be ${context.where}: escaping does not make text safe there (use {{{ }}} with HTML you built yourself)`);
    }
    if (context.kind === "unquoted") throw new SyntaxError(`templates: ${file}:${node.line}: ${written} is an unquoted attribute value: put the attribute value in quotes`);
    if (context.url !== null) slots.set(node, context.url);
  }
  return slots;
}
