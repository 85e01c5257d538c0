// In-place applicators ($ref, $dynamicRef, allOf, anyOf, oneOf, not, if/then/else) and the
// unevaluated* keywords, which see what the others evaluated through `Evaluated`.
import { isSchemaObject, type SchemaNode } from "./schema-node.js";
import { splitRef } from "./registry.js";
import { mergeEvaluated, newEvaluated, type Check, type Evaluated, type ValidationState } from "../plugin.js";

function refDepthExceeded(s: ValidationState): boolean {
  if (s.refDepth < s.maxRefDepth) return false;
  s.report("depth", "is nested too deeply");
  return true;
}

function addRef(node: SchemaNode): void {
  const ref = node.schema["$ref"];
  if (typeof ref !== "string") return;
  const target = node.ref(ref);
  const check = target.check;
  const crossesResource = target.base !== node.base;
  const cc = node.cc;
  node.checks.push((v, s, ev) => {
    if (refDepthExceeded(s)) return false;
    s.refDepth++;
    // Entering another resource through $ref puts it in the dynamic scope.
    const scoped = crossesResource && cc.dynamic;
    if (scoped) s.scope.push(target.base);
    try {
      return check(v, s, ev);
    } finally {
      if (scoped) s.scope.pop();
      s.refDepth--;
    }
  });
}

function addDynamicRef(node: SchemaNode): void {
  const ref = node.schema["$dynamicRef"];
  if (typeof ref !== "string") return;
  const cc = node.cc;
  cc.dynamic = true;
  const initial = node.ref(ref);
  const fragment = splitRef(ref, node.base)[1];
  // Dynamic only when the statically resolved target carries a matching $dynamicAnchor.
  const dynamic = fragment !== "" && !fragment.startsWith("/") && isSchemaObject(initial.schema) && initial.schema["$dynamicAnchor"] === fragment;
  const byResource = new Map<string, Check | null>();
  const lookup = (resource: string): Check | null => {
    let check = byResource.get(resource);
    if (check === undefined) {
      const found = cc.registry.dynamicAnchor(resource, fragment);
      check = found === undefined ? null : cc.compile(found.schema, found.base, node.validation);
      byResource.set(resource, check);
    }
    return check;
  };
  node.checks.push((v, s, ev) => {
    let check = initial.check;
    let base = initial.base;
    if (dynamic) {
      for (let i = 0; i < s.scope.length; i++) {
        const found = lookup(s.scope[i] as string);
        if (found !== null) {
          check = found;
          base = s.scope[i] as string;
          break;
        }
      }
    }
    if (refDepthExceeded(s)) return false;
    s.refDepth++;
    s.scope.push(base);
    try {
      return check(v, s, ev);
    } finally {
      s.scope.pop();
      s.refDepth--;
    }
  });
}

function subschemas(node: SchemaNode, key: string): Check[] | null {
  const list = node.schema[key];
  return Array.isArray(list) && list.length > 0 ? list.map((x) => node.sub(x)) : null;
}

function addAllOf(node: SchemaNode): void {
  const checks = subschemas(node, "allOf");
  if (checks === null) return;
  node.checks.push((v, s, ev) => {
    let ok = true;
    for (let i = 0; i < checks.length; i++) {
      if (!(checks[i] as Check)(v, s, ev)) {
        ok = false;
        if (s.stop) return false;
      }
    }
    return ok;
  });
}

function addAnyOf(node: SchemaNode): void {
  const checks = subschemas(node, "anyOf");
  if (checks === null) return;
  const message = node.message("anyOf", "must match at least one of the allowed schemas");
  node.checks.push((v, s, ev) => {
    let any = false;
    s.quiet++;
    for (let i = 0; i < checks.length; i++) {
      const local = ev === null ? null : newEvaluated();
      if (!(checks[i] as Check)(v, s, local)) continue;
      any = true;
      if (local === null) break; // nobody needs the annotations of the other branches
      mergeEvaluated(ev as Evaluated, local);
    }
    s.quiet--;
    if (!any) s.report("anyOf", message);
    return any;
  });
}

function addOneOf(node: SchemaNode): void {
  const checks = subschemas(node, "oneOf");
  if (checks === null) return;
  const noneMessage = node.message("oneOf", "must match exactly one of the allowed schemas");
  const manyMessage = node.message("oneOf", "must match exactly one of the allowed schemas, but matches several");
  node.checks.push((v, s, ev) => {
    let count = 0;
    let passed: Evaluated | null = null;
    s.quiet++;
    for (let i = 0; i < checks.length && count < 2; i++) {
      const local = ev === null ? null : newEvaluated();
      if ((checks[i] as Check)(v, s, local)) {
        count++;
        passed = local;
      }
    }
    s.quiet--;
    if (count === 1) {
      if (ev !== null && passed !== null) mergeEvaluated(ev, passed);
      return true;
    }
    s.report("oneOf", count === 0 ? noneMessage : manyMessage);
    return false;
  });
}

function addNot(node: SchemaNode): void {
  if (!Object.hasOwn(node.schema, "not")) return;
  const check = node.sub(node.schema["not"]);
  const message = node.message("not", "must not match the disallowed schema");
  node.checks.push((v, s) => {
    s.quiet++;
    const matched = check(v, s, null);
    s.quiet--;
    if (!matched) return true;
    s.report("not", message);
    return false;
  });
}

function addConditional(node: SchemaNode): void {
  const schema = node.schema;
  if (!Object.hasOwn(schema, "if")) return;
  const condition = node.sub(schema["if"]);
  const then = Object.hasOwn(schema, "then") ? node.sub(schema["then"]) : null;
  const otherwise = Object.hasOwn(schema, "else") ? node.sub(schema["else"]) : null;
  node.checks.push((v, s, ev) => {
    if (then === null && otherwise === null && ev === null) return true;
    const local = ev === null ? null : newEvaluated();
    s.quiet++;
    const matched = condition(v, s, local);
    s.quiet--;
    if (matched) {
      if (local !== null) mergeEvaluated(ev as Evaluated, local);
      return then === null || then(v, s, ev);
    }
    return otherwise === null || otherwise(v, s, ev);
  });
}

export function addApplicatorKeywords(node: SchemaNode): void {
  addRef(node);
  addDynamicRef(node);
  addAllOf(node);
  addAnyOf(node);
  addOneOf(node);
  addNot(node);
  addConditional(node);
}

function addUnevaluatedItems(node: SchemaNode): void {
  if (!Object.hasOwn(node.schema, "unevaluatedItems")) return;
  const isFalse = node.schema["unevaluatedItems"] === false;
  const check = node.sub(node.schema["unevaluatedItems"]);
  const message = node.message("unevaluatedItems", "is not an allowed item");
  node.unevaluated.push((v, s, ev) => {
    if (!Array.isArray(v)) return true;
    const done = ev as Evaluated;
    if (done.allItems) return true;
    let ok = true;
    for (let i = done.items; i < v.length; i++) {
      if (done.itemSet !== null && done.itemSet.has(i)) continue;
      if (isFalse) {
        s.report("unevaluatedItems", message, i);
        ok = false;
      } else {
        s.path.push(i);
        if (!check(v[i], s, null)) ok = false;
        s.path.pop();
      }
      if (!ok && s.stop) return false;
    }
    if (ok) done.allItems = true;
    return ok;
  });
}

function addUnevaluatedProperties(node: SchemaNode): void {
  if (!Object.hasOwn(node.schema, "unevaluatedProperties")) return;
  const isFalse = node.schema["unevaluatedProperties"] === false;
  const check = node.sub(node.schema["unevaluatedProperties"]);
  const message = node.message("unevaluatedProperties", "is not an allowed property");
  node.unevaluated.push((v, s, ev) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return true;
    const done = ev as Evaluated;
    if (done.allProps) return true;
    let ok = true;
    for (const key of Object.keys(v)) {
      if (done.props !== null && done.props.has(key)) continue;
      if (isFalse) {
        s.report("unevaluatedProperties", message, key);
        ok = false;
      } else {
        s.path.push(key);
        if (!check((v as Record<string, unknown>)[key], s, null)) ok = false;
        s.path.pop();
      }
      if (!ok && s.stop) return false;
    }
    if (ok) done.allProps = true;
    return ok;
  });
}

export function addUnevaluatedKeywords(node: SchemaNode): void {
  addUnevaluatedItems(node);
  addUnevaluatedProperties(node);
}
