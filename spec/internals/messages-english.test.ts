// keel/messages' English catalogue, white-box: each template, rendered with the parameters the
// validators use, is byte for byte the text lib/schema/messages.ts (and keel/schema) writes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { englishMessages } from "../../lib/messages/index.js";
import { compileTemplate, renderTemplate } from "../../lib/messages/template.js";
import { defaultMessages } from "../../lib/plugin.js";

describe("the English catalogue", () => {
  const render = (key: keyof typeof englishMessages, params: Record<string, string> = {}): string =>
    renderTemplate(compileTemplate(englishMessages[key]), params, new Intl.PluralRules("en"));
  const M = defaultMessages;

  test("its templates write the validators' texts byte for byte", () => {
    for (const n of [0, 1, 2, 10]) {
      const limit = String(n);
      assert.equal(render("length.min", { limit }), M.minLength(n));
      assert.equal(render("length.max", { limit }), M.maxLength(n));
      assert.equal(render("minItems", { limit }), M.minItems(n));
      assert.equal(render("maxItems", { limit }), M.maxItems(n));
      assert.equal(render("items", { limit }), M.maxItems(n));
      assert.equal(render("minProperties", { limit }), M.minProperties(n));
      assert.equal(render("maxProperties", { limit }), M.maxProperties(n));
      assert.equal(render("contains", { limit }), `must contain at least ${n} matching item${n === 1 ? "" : "s"}`);
    }
    for (const n of [-1.5, 0, 18, 1e21]) {
      const limit = String(n);
      assert.equal(render("range.minimum", { limit }), M.minimum(n));
      assert.equal(render("range.maximum", { limit }), M.maximum(n));
      assert.equal(render("range.exclusiveMinimum", { limit }), M.exclusiveMinimum(n));
      assert.equal(render("range.exclusiveMaximum", { limit }), M.exclusiveMaximum(n));
      assert.equal(render("multipleOf", { divisor: limit }), M.multipleOf(n));
    }
    assert.equal(render("required"), M.required);
    assert.equal(render("email"), M.email);
    assert.equal(render("additionalProperties"), M.additionalProperties);
    assert.equal(render("uniqueItems"), M.uniqueItems);
    assert.equal(render("regex", { pattern: "^a{2}$" }), M.pattern("^a{2}$"));
    assert.equal(render("format", { format: "date-time" }), M.format("date-time"));
    assert.equal(render("type", { types: "a string or null" }), M.type(["string", "null"]));
    for (const name of ["string", "integer", "number", "boolean", "object", "array", "null"] as const) {
      assert.equal(`must be ${render(`types.${name}`)}`, M.type([name]));
    }
  });

  test("templates: an exact =N branch wins over the plural category; # is the number as written", () => {
    const tpl = compileTemplate("{n, plural, =0 {none} one {# thing} other {# things}} left");
    const en = new Intl.PluralRules("en");
    assert.equal(renderTemplate(tpl, { n: "0" }, en), "none left");
    assert.equal(renderTemplate(tpl, { n: "1" }, en), "1 thing left");
    assert.equal(renderTemplate(tpl, { n: "1000" }, en), "1000 things left");
    assert.equal(renderTemplate(tpl, { n: "x" }, en), "x things left");
    const pl = compileTemplate("{n, plural, one {# plik} few {# pliki} many {# plików} other {# pliku}}");
    assert.equal(renderTemplate(pl, { n: "3" }, new Intl.PluralRules("pl")), "3 pliki");
    assert.equal(renderTemplate(pl, { n: "5" }, new Intl.PluralRules("pl")), "5 plików");
  });
});
