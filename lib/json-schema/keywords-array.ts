// Array keywords: prefixItems/items (one pass), contains/minContains/maxContains,
// minItems/maxItems and uniqueItems (hashing: linear, not pairwise).
import { canonicalKey, coercerFor, defaultMessages as M, type Check, type Coercer } from "../plugin.js";
import type { SchemaNode } from "./schema-node.js";

function addItems(node: SchemaNode): void {
  const schema = node.schema;
  const prefix = Array.isArray(schema["prefixItems"]) ? (schema["prefixItems"] as unknown[]) : [];
  const hasItems = Object.hasOwn(schema, "items") && !Array.isArray(schema["items"]);
  if (prefix.length === 0 && !hasItems) return;
  const prefixChecks = prefix.map((p) => node.sub(p));
  const itemsFalse = schema["items"] === false;
  const items = hasItems && !itemsFalse ? node.sub(schema["items"]) : null;
  const coerce = node.cc.settings.coerce;
  const prefixCoercers: (Coercer | null)[] = coerce ? prefix.map((p) => coercerFor(p)) : [];
  const itemCoercer: Coercer | null = coerce && hasItems ? coercerFor(schema["items"]) : null;
  const tooMany = node.message("items", `must have at most ${prefix.length} item${prefix.length === 1 ? "" : "s"}`);
  const np = prefix.length;

  node.checks.push((v, s, ev) => {
    if (!Array.isArray(v)) return true;
    let ok = true;
    const n = v.length;
    for (let i = 0; i < n; i++) {
      let check: Check | null;
      let coercer: Coercer | null;
      if (i < np) {
        check = prefixChecks[i] as Check;
        coercer = prefixCoercers[i] ?? null;
      } else if (itemsFalse) {
        s.report("items", tooMany);
        return false;
      } else {
        check = items;
        coercer = itemCoercer;
      }
      if (check === null) break;
      let value = v[i];
      if (coercer !== null) value = v[i] = coercer(value);
      s.path.push(i);
      const valid = check(value, s, null);
      s.path.pop();
      if (!valid) {
        ok = false;
        if (s.stop) return false;
      }
    }
    if (ev !== null) {
      if (hasItems) ev.allItems = true;
      else if (np > ev.items) ev.items = Math.min(np, n);
    }
    return ok;
  });
}

function addContains(node: SchemaNode): void {
  const schema = node.schema;
  if (!Object.hasOwn(schema, "contains")) return;
  const check = node.sub(schema["contains"]);
  const min = node.validation && typeof schema["minContains"] === "number" ? schema["minContains"] : 1;
  const max = node.validation && typeof schema["maxContains"] === "number" ? schema["maxContains"] : Infinity;
  const minMessage = node.message("contains", `must contain at least ${min} matching item${min === 1 ? "" : "s"}`);
  const maxMessage = node.message("maxContains", `must contain at most ${max} matching item${max === 1 ? "" : "s"}`);
  node.checks.push((v, s, ev) => {
    if (!Array.isArray(v)) return true;
    let count = 0;
    s.quiet++;
    for (let i = 0; i < v.length; i++) {
      if (!check(v[i], s, null)) continue;
      count++;
      if (ev !== null) (ev.itemSet ??= new Set()).add(i);
      else if (count > max) break;
      else if (count >= min && max === Infinity) break;
    }
    s.quiet--;
    if (count < min) s.report("contains", minMessage);
    else if (count > max) s.report("maxContains", maxMessage);
    else return true;
    return false;
  });
}

function addCounts(node: SchemaNode): void {
  const min = node.schema["minItems"];
  const max = node.schema["maxItems"];
  if (typeof min !== "number" && typeof max !== "number") return;
  const lo = typeof min === "number" ? min : 0;
  const hi = typeof max === "number" ? max : Infinity;
  const minMessage = node.message("minItems", M.minItems(lo));
  const maxMessage = node.message("maxItems", M.maxItems(hi));
  node.checks.push((v, s) => {
    if (!Array.isArray(v)) return true;
    if (v.length < lo) s.report("minItems", minMessage);
    else if (v.length > hi) s.report("maxItems", maxMessage);
    else return true;
    return false;
  });
}

function addUnique(node: SchemaNode): void {
  if (node.schema["uniqueItems"] !== true) return;
  const message = node.message("uniqueItems", M.uniqueItems);
  node.checks.push((v, s) => {
    if (!Array.isArray(v) || v.length < 2) return true;
    const seen = new Set<unknown>();
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      // Scalars hash as themselves (one Set, typed keys); structures by a canonical string.
      const key = typeof item === "object" && item !== null ? canonicalKey(item) : typeof item === "string" ? `s${item}` : item;
      if (seen.has(key)) {
        s.report("uniqueItems", message, i);
        return false;
      }
      seen.add(key);
    }
    return true;
  });
}

export function addArrayKeywords(node: SchemaNode): void {
  addItems(node);
  addContains(node);
  if (node.validation) {
    addCounts(node);
    addUnique(node);
  }
}
