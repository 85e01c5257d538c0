// Validation-vocabulary keywords on single values: type, const, enum, string and number rules,
// and format. Field codes: type, enum, length, regex, range, email, format, multipleOf.
import { codePointLength, defaultMessages as M, isMultipleOf, jsonEqual } from "../plugin.js";
import type { SchemaNode } from "./schema-node.js";

export function typePredicate(type: string): (v: unknown) => boolean {
  switch (type) {
    case "string": return (v) => typeof v === "string";
    case "integer": return (v) => Number.isInteger(v);
    case "number": return (v) => typeof v === "number" && Number.isFinite(v);
    case "boolean": return (v) => typeof v === "boolean";
    case "null": return (v) => v === null;
    case "object": return (v) => typeof v === "object" && v !== null && !Array.isArray(v);
    case "array": return (v) => Array.isArray(v);
    default: throw new TypeError(`unknown JSON Schema type ${JSON.stringify(type)}`);
  }
}

function addType(node: SchemaNode): void {
  const type = node.schema["type"];
  if (type === undefined) return;
  const types = Array.isArray(type) ? (type as string[]) : [type as string];
  const message = node.message("type", M.type(types));
  const preds = types.map(typePredicate);
  if (preds.length === 1) {
    const p = preds[0] as (v: unknown) => boolean;
    node.typeCheck = (v, s) => {
      if (p(v)) return true;
      s.report("type", message);
      return false;
    };
    return;
  }
  node.typeCheck = (v, s) => {
    for (let i = 0; i < preds.length; i++) if ((preds[i] as (v: unknown) => boolean)(v)) return true;
    s.report("type", message);
    return false;
  };
}

function addConstEnum(node: SchemaNode): void {
  const schema = node.schema;
  if (Object.hasOwn(schema, "const")) {
    const expected = schema["const"];
    const message = node.message("enum", M.const(expected));
    node.checks.push((v, s) => {
      if (v === expected || jsonEqual(v, expected)) return true;
      s.report("enum", message);
      return false;
    });
  }
  const values = schema["enum"];
  if (Array.isArray(values)) {
    const message = node.message("enum", M.enum(values));
    const scalars = values.every((x) => typeof x !== "object" || x === null) ? new Set(values) : null;
    node.checks.push((v, s) => {
      if (scalars !== null ? scalars.has(v) : values.some((x) => jsonEqual(v, x))) return true;
      s.report("enum", message);
      return false;
    });
  }
}

function addString(node: SchemaNode): void {
  const schema = node.schema;
  const min = typeof schema["minLength"] === "number" ? schema["minLength"] : -1;
  const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : -1;
  const pattern = typeof schema["pattern"] === "string" ? new RegExp(schema["pattern"], "u") : null;
  if (min < 0 && max < 0 && pattern === null) return;
  const minMessage = node.message("length", M.minLength(min));
  const maxMessage = node.message("length", M.maxLength(max));
  const regexMessage = node.message("regex", M.pattern(String(schema["pattern"])));
  node.checks.push((v, s) => {
    if (typeof v !== "string") return true;
    let ok = true;
    // UTF-16 length bounds the code-point length from both sides: count only when it can matter.
    if (min > 0 && (v.length < min || (v.length < 2 * min && codePointLength(v) < min))) {
      s.report("length", minMessage);
      ok = false;
    } else if (max >= 0 && v.length > max && codePointLength(v) > max) {
      s.report("length", maxMessage);
      ok = false;
    }
    if (!ok && s.stop) return false;
    if (pattern !== null && !pattern.test(v)) {
      s.report("regex", regexMessage);
      ok = false;
    }
    return ok;
  });
}

function addFormat(node: SchemaNode): void {
  const format = node.schema["format"];
  if (typeof format !== "string") return;
  const check = node.cc.formatCheck(format);
  if (check === undefined) return;
  const code = format === "email" ? "email" : "format";
  const message = node.message(code, format === "email" ? M.email : M.format(format));
  node.checks.push((v, s) => {
    if (typeof v !== "string" || check(v)) return true;
    s.report(code, message);
    return false;
  });
}

function numberKeyword(schema: SchemaNode["schema"], key: string): number | undefined {
  const v = schema[key];
  return typeof v === "number" ? v : undefined;
}

function addNumber(node: SchemaNode): void {
  const schema = node.schema;
  const min = numberKeyword(schema, "minimum");
  const max = numberKeyword(schema, "maximum");
  const xmin = numberKeyword(schema, "exclusiveMinimum");
  const xmax = numberKeyword(schema, "exclusiveMaximum");
  const multipleOf = numberKeyword(schema, "multipleOf");
  const bounds: { test: (v: number) => boolean; message: string }[] = [];
  if (min !== undefined) bounds.push({ test: (v) => v >= min, message: node.message("range", M.minimum(min)) });
  if (xmin !== undefined) bounds.push({ test: (v) => v > xmin, message: node.message("range", M.exclusiveMinimum(xmin)) });
  if (max !== undefined) bounds.push({ test: (v) => v <= max, message: node.message("range", M.maximum(max)) });
  if (xmax !== undefined) bounds.push({ test: (v) => v < xmax, message: node.message("range", M.exclusiveMaximum(xmax)) });
  if (bounds.length > 0) {
    node.checks.push((v, s) => {
      if (typeof v !== "number") return true;
      let ok = true;
      for (let i = 0; i < bounds.length; i++) {
        const b = bounds[i] as { test: (v: number) => boolean; message: string };
        if (!b.test(v)) {
          s.report("range", b.message);
          ok = false;
          if (s.stop) return false;
        }
      }
      return ok;
    });
  }
  if (multipleOf !== undefined) {
    const message = node.message("multipleOf", M.multipleOf(multipleOf));
    node.checks.push((v, s) => {
      if (typeof v !== "number" || isMultipleOf(v, multipleOf)) return true;
      s.report("multipleOf", message);
      return false;
    });
  }
}

export function addValueKeywords(node: SchemaNode): void {
  addType(node);
  addConstEnum(node);
  addString(node);
  addFormat(node);
  addNumber(node);
}

