// Object keywords: properties/patternProperties/additionalProperties (one pass), required,
// dependentRequired, dependentSchemas, propertyNames, min/maxProperties, and `default` filling.
import { coercerFor, defaultMessages as M, requiredMessage, setOwn, type Check, type Coercer, type Evaluated } from "../plugin.js";
import { isSchemaObject, type SchemaNode } from "./schema-node.js";

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function markProp(ev: Evaluated, key: string): void {
  if (ev.allProps) return;
  (ev.props ??= new Set()).add(key);
}

function addDefaults(node: SchemaNode, props: Obj): void {
  const defaults: [string, unknown][] = [];
  for (const key of Object.keys(props)) {
    const child = props[key];
    if (isSchemaObject(child) && Object.hasOwn(child, "default")) defaults.push([key, child["default"]]);
  }
  if (defaults.length === 0) return;
  node.checks.push((v) => {
    if (!isObject(v)) return true;
    for (const [key, value] of defaults) {
      if (!Object.hasOwn(v, key)) setOwn(v, key, typeof value === "object" && value !== null ? structuredClone(value) : value);
    }
    return true;
  });
}

function addRequired(node: SchemaNode, props: Obj | undefined): void {
  const required = node.schema["required"];
  if (!node.validation || !Array.isArray(required) || required.length === 0) return;
  const names = required as string[];
  const messages = names.map((name) => requiredMessage(node.schema, props?.[name]));
  node.checks.push((v, s) => {
    if (!isObject(v)) return true;
    let ok = true;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      if (v[name] === undefined || !Object.hasOwn(v, name)) {
        s.report("required", messages[i] as string, name);
        ok = false;
        if (s.stop) return false;
      }
    }
    return ok;
  });
}

function addProperties(node: SchemaNode, props: Obj | undefined): void {
  const schema = node.schema;
  const patternMap = isSchemaObject(schema["patternProperties"]) ? schema["patternProperties"] : undefined;
  const hasAdditional = Object.hasOwn(schema, "additionalProperties");
  if (props === undefined && patternMap === undefined && !hasAdditional) return;
  const names = props === undefined ? [] : Object.keys(props);
  const checks = names.map((n) => node.sub((props as Obj)[n]));
  const coercers: (Coercer | null)[] | null = node.cc.settings.coerce ? names.map((n) => coercerFor((props as Obj)[n])) : null;
  const patterns = patternMap === undefined ? [] : Object.keys(patternMap).map((p) => ({ re: new RegExp(p, "u"), check: node.sub(patternMap[p]) }));
  const additionalSchema = schema["additionalProperties"];
  const additionalFalse = additionalSchema === false;
  const additional = hasAdditional && !additionalFalse ? node.sub(additionalSchema) : null;
  const additionalCoercer = node.cc.settings.coerce && additional !== null ? coercerFor(additionalSchema) : null;
  const additionalMessage = node.message("additionalProperties", M.additionalProperties);
  const known = new Set(names);
  const scanAll = patterns.length > 0 || hasAdditional;

  const check: Check = (v, s, ev) => {
    if (!isObject(v)) return true;
    let ok = true;
    for (let i = 0; i < names.length; i++) {
      const key = names[i] as string;
      let value = v[key];
      if (value === undefined || !Object.hasOwn(v, key)) continue;
      if (coercers !== null) {
        const coerce = coercers[i];
        if (coerce != null) {
          const next = coerce(value);
          if (next !== value) setOwn(v, key, (value = next));
        }
      }
      s.path.push(key);
      const valid = (checks[i] as Check)(value, s, null);
      s.path.pop();
      if (!valid) {
        ok = false;
        if (s.stop) return false;
      }
      if (ev !== null) markProp(ev, key);
    }
    if (!scanAll) return ok;
    const keys = Object.keys(v);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as string;
      let matched = known.has(key);
      for (let p = 0; p < patterns.length; p++) {
        const pattern = patterns[p] as { re: RegExp; check: Check };
        if (!pattern.re.test(key)) continue;
        matched = true;
        s.path.push(key);
        const valid = pattern.check(v[key], s, null);
        s.path.pop();
        if (!valid) {
          ok = false;
          if (s.stop) return false;
        }
      }
      if (matched) {
        if (ev !== null) markProp(ev, key);
        continue;
      }
      if (!hasAdditional) continue;
      if (additionalFalse) {
        s.report("additionalProperties", additionalMessage, key);
        ok = false;
        if (s.stop) return false;
        continue;
      }
      let value = v[key];
      if (additionalCoercer !== null) {
        const next = additionalCoercer(value);
        if (next !== value) setOwn(v, key, (value = next));
      }
      s.path.push(key);
      const valid = (additional as Check)(value, s, null);
      s.path.pop();
      if (!valid) {
        ok = false;
        if (s.stop) return false;
      }
    }
    if (ev !== null && hasAdditional) ev.allProps = true;
    return ok;
  };
  node.checks.push(check);
}

function addCounts(node: SchemaNode): void {
  const min = node.schema["minProperties"];
  const max = node.schema["maxProperties"];
  if (!node.validation || (typeof min !== "number" && typeof max !== "number")) return;
  const lo = typeof min === "number" ? min : 0;
  const hi = typeof max === "number" ? max : Infinity;
  const minMessage = node.message("minProperties", M.minProperties(lo));
  const maxMessage = node.message("maxProperties", M.maxProperties(hi));
  node.checks.push((v, s) => {
    if (!isObject(v)) return true;
    const n = Object.keys(v).length;
    if (n < lo) s.report("minProperties", minMessage);
    else if (n > hi) s.report("maxProperties", maxMessage);
    else return true;
    return false;
  });
}

function addDependencies(node: SchemaNode): void {
  const depRequired = node.schema["dependentRequired"];
  if (node.validation && isSchemaObject(depRequired)) {
    const rules = Object.keys(depRequired).map((key) => ({ key, needs: depRequired[key] as string[] }));
    node.checks.push((v, s) => {
      if (!isObject(v)) return true;
      let ok = true;
      for (const { key, needs } of rules) {
        if (!Object.hasOwn(v, key)) continue;
        for (const name of needs) {
          if (Object.hasOwn(v, name)) continue;
          s.report("required", node.message("required", `is required when ${key} is present`), name);
          ok = false;
          if (s.stop) return false;
        }
      }
      return ok;
    });
  }
  const depSchemas = node.schema["dependentSchemas"];
  if (isSchemaObject(depSchemas)) {
    const rules = Object.keys(depSchemas).map((key) => ({ key, check: node.sub(depSchemas[key]) }));
    node.checks.push((v, s, ev) => {
      if (!isObject(v)) return true;
      let ok = true;
      for (const { key, check } of rules) {
        if (Object.hasOwn(v, key) && !check(v, s, ev)) {
          ok = false;
          if (s.stop) return false;
        }
      }
      return ok;
    });
  }
}

function addPropertyNames(node: SchemaNode): void {
  if (!Object.hasOwn(node.schema, "propertyNames")) return;
  const check = node.sub(node.schema["propertyNames"]);
  const message = node.message("propertyNames", "is not an allowed property name");
  node.checks.push((v, s) => {
    if (!isObject(v)) return true;
    let ok = true;
    for (const key of Object.keys(v)) {
      s.quiet++;
      const valid = check(key, s, null);
      s.quiet--;
      if (!valid) {
        s.report("propertyNames", message, key);
        ok = false;
        if (s.stop) return false;
      }
    }
    return ok;
  });
}

export function addObjectKeywords(node: SchemaNode): void {
  const props = isSchemaObject(node.schema["properties"]) ? (node.schema["properties"] as Obj) : undefined;
  if (props !== undefined && node.cc.settings.useDefaults) addDefaults(node, props);
  addRequired(node, props);
  addProperties(node, props);
  addCounts(node);
  addDependencies(node);
  addPropertyNames(node);
}
