// Code generation for the common case: schema objects that use only "local" keywords (type,
// properties, required, additionalProperties, items, string/number/array/object rules, const,
// enum, format, defaults) become one straight-line function, like ajv does. Every other keyword
// ($ref, applicators, unevaluated*, ...) makes that subschema a call into the compiler the
// generator is part of: keel/schema's closure compiler, so both engines mix freely within one
// schema; or the kernel's compiler (kernel-compiler.ts), which also has the generator emit the
// applicators `t` builds (anyOf, oneOf, allOf, not, prefixItems) and refuses the rest.
//
// Safety: no schema text is ever spliced into code as code. Keys, messages and literal values go
// through JSON.stringify (valid JS string/number literals); RegExps, format checks, defaults and
// closures are passed in the constants array `c`.
import { ASYNC_KEYWORD } from "./async-rule.js";
import { setOwn, coercerFor } from "./coerce.js";
import { canonicalKey, jsonEqual } from "./json-equal.js";
import { defaultMessages as M, requiredMessage, schemaMessage } from "./messages.js";
import type { Check, Evaluated, ValidationState } from "./state.js";
import { codePointLength, isMultipleOf } from "./value-rules.js";

/** What the generator asks of the compiler it is part of. */
export interface CodegenHost {
  readonly settings: { readonly coerce: boolean; readonly useDefaults: boolean };
  /** Set by the kernel's compiler: generate anyOf/oneOf/allOf/not/prefixItems too (it has no closures for them). */
  readonly applicators?: boolean;
  compile(schema: unknown, base: string, validation: boolean): Check;
  formatCheck(name: string): ((s: string) => boolean) | undefined;
}

type SchemaObject = { readonly [k: string]: unknown };
export type GeneratedCheck = (v: unknown, s: ValidationState, ev: Evaluated | null) => boolean;

/** Keywords the generator leaves to the closure compiler. */
const CLOSURE_ONLY = new Set([
  "$ref", "$dynamicRef", "$id", "$dynamicAnchor", "$schema", "$recursiveRef", "$recursiveAnchor",
  "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependentRequired",
  "propertyNames", "patternProperties", "prefixItems", "contains", "minContains", "maxContains",
  "unevaluatedProperties", "unevaluatedItems",
]);
/** The applicators the kernel's compiler generates (what `t.union`, `t.nullable`, `t.tuple` and `t.named` emit). */
const APPLICATORS = new Set(["allOf", "anyOf", "oneOf", "not", "prefixItems"]);
/** The dialect the kernel's compiler implements (any other `$schema` is keel/schema's to judge). */
const DIALECT_2020_12 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;
const TYPES = new Set(["string", "integer", "number", "boolean", "null", "object", "array"]);
const MAX_INLINE_DEPTH = 16;

function isObj(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether this schema object's own keywords can all be generated. With `applicators` (the kernel's
 * compiler) the applicators above are generated too, `$schema` may name 2020-12, and async rules
 * are not generated: only keel/schema runs them.
 */
export function isGeneratable(schema: SchemaObject, applicators = false): boolean {
  if (applicators) {
    for (const key in schema) {
      if (key === "$schema" ? !DIALECT_2020_12.test(String(schema[key])) : (CLOSURE_ONLY.has(key) && !APPLICATORS.has(key)) || key === ASYNC_KEYWORD) return false;
    }
  } else {
    for (const key in schema) if (CLOSURE_ONLY.has(key)) return false;
  }
  const type = schema["type"];
  if (type !== undefined && !(typeof type === "string" ? TYPES.has(type) : Array.isArray(type) && type.every((t) => TYPES.has(t as string)))) {
    return false;
  }
  return !Array.isArray(schema["items"]);
}

const PREDICATES: Record<string, (x: string) => string> = {
  string: (x) => `typeof ${x} === "string"`,
  integer: (x) => `Number.isInteger(${x})`,
  number: (x) => `(typeof ${x} === "number" && Number.isFinite(${x}))`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  null: (x) => `${x} === null`,
  object: (x) => `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`,
  array: (x) => `Array.isArray(${x})`,
};

const lit = (v: unknown): string => JSON.stringify(v) as string;

/** A step below the current path: a known property name, or a variable holding an index or a key. */
type Seg = { readonly key: string } | { readonly index: string } | { readonly keyVar: string };
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** JS expression for the relative field text (`address.city`, `items[3].name`), built only on failure. */
function fieldExpr(rel: readonly Seg[]): string {
  const parts: string[] = [];
  let text = "";
  rel.forEach((seg, i) => {
    if ("key" in seg) text += PLAIN_KEY.test(seg.key) ? (i === 0 ? seg.key : `.${seg.key}`) : `[${JSON.stringify(seg.key)}]`;
    else {
      if (text !== "") parts.push(lit(text));
      text = "";
      parts.push("index" in seg ? `"[" + ${seg.index} + "]"` : `h.seg(${seg.keyVar}, ${i === 0})`);
    }
  });
  if (text !== "" || parts.length === 0) parts.push(lit(text));
  return parts.join(" + ");
}

const segValue = (seg: Seg): string => ("key" in seg ? lit(seg.key) : "index" in seg ? seg.index : seg.keyVar);
const isScalar = (v: unknown): boolean => typeof v !== "object" || v === null;

class Generator {
  readonly consts: unknown[] = [];
  readonly out: string[] = [];
  #names = 0;

  constructor(readonly cc: CodegenHost, readonly base: string) {}

  const(value: unknown): string {
    this.consts.push(value);
    return `c[${this.consts.length - 1}]`;
  }

  name(prefix: string): string {
    return `${prefix}${++this.#names}`;
  }

  fail(rel: readonly Seg[], code: string, message: string, label?: string): void {
    this.out.push(`if (s.failAt(${fieldExpr(rel)}, ${lit(code)}, ${lit(message)})) return false; ok = false;${label === undefined ? "" : ` break ${label};`}`);
  }

  /** Emits the checks of `schema` on the value in variable `x`, found at `rel` below the current path. */
  node(schema: unknown, x: string, rel: readonly Seg[], depth: number): void {
    if (schema === true) return;
    if (schema === false) return this.fail(rel, "forbidden", "is not allowed");
    if (!isObj(schema) || !isGeneratable(schema, this.cc.applicators) || depth > MAX_INLINE_DEPTH) return this.closure(schema, x, rel);
    const label = this.name("L");
    this.out.push(`${label}: {`);
    const type = schema["type"];
    const types = type === undefined ? [] : typeof type === "string" ? [type] : (type as string[]);
    if (types.length > 0) {
      const cond = types.map((t) => (PREDICATES[t] as (x: string) => string)(x)).join(" || ");
      this.out.push(`if (!(${cond})) {`);
      this.fail(rel, "type", schemaMessage(schema, "type", M.type(types)), label);
      this.out.push("}");
    }
    const only = types.length === 1 ? types[0] : undefined;
    this.constEnum(schema, x, rel);
    this.guarded(only === "string", PREDICATES["string"]?.(x), () => this.string(schema, x, rel));
    this.guarded(only === "number" || only === "integer", `typeof ${x} === "number"`, () => this.number(schema, x, rel));
    this.guarded(only === "object", PREDICATES["object"]?.(x), () => this.object(schema, x, rel, depth));
    this.guarded(only === "array", `Array.isArray(${x})`, () => this.array(schema, x, rel, depth));
    if (this.cc.applicators === true) this.applicators(schema, x, rel, depth);
    this.out.push("}");
  }

  /** allOf inline; anyOf/oneOf/not call their branches' checks quietly (a failed branch is a result, not an error). */
  applicators(schema: SchemaObject, x: string, rel: readonly Seg[], depth: number): void {
    const all = schema["allOf"];
    if (Array.isArray(all)) for (const sub of all) this.node(sub, x, rel, depth + 1);
    const branches = (key: string): string[] | null => {
      const list = schema[key];
      if (!Array.isArray(list) || list.length === 0) return null;
      return list.map((sub) => `${this.const(this.cc.compile(sub, this.base, true) satisfies Check)}(${x}, s, null)`);
    };
    const any = branches("anyOf");
    if (any !== null) {
      const r = this.name("r");
      this.out.push("s.quiet++;", `const ${r} = ${any.join(" || ")};`, "s.quiet--;", `if (!${r}) {`);
      this.fail(rel, "anyOf", schemaMessage(schema, "anyOf", "must match at least one of the allowed schemas"));
      this.out.push("}");
    }
    const one = branches("oneOf");
    if (one !== null) {
      const n = this.name("n");
      this.out.push(`let ${n} = 0;`, "s.quiet++;", ...one.map((call) => `if (${n} < 2 && ${call}) ${n}++;`), "s.quiet--;", `if (${n} === 0) {`);
      this.fail(rel, "oneOf", schemaMessage(schema, "oneOf", "must match exactly one of the allowed schemas"));
      this.out.push(`} else if (${n} > 1) {`);
      this.fail(rel, "oneOf", schemaMessage(schema, "oneOf", "must match exactly one of the allowed schemas, but matches several"));
      this.out.push("}");
    }
    if (Object.hasOwn(schema, "not")) {
      const r = this.name("r");
      const fn = this.const(this.cc.compile(schema["not"], this.base, true) satisfies Check);
      this.out.push("s.quiet++;", `const ${r} = ${fn}(${x}, s, null);`, "s.quiet--;", `if (${r}) {`);
      this.fail(rel, "not", schemaMessage(schema, "not", "must not match the disallowed schema"));
      this.out.push("}");
    }
  }

  /** Runs `emit` under `if (cond)` unless the type check already proved it; drops empty blocks. */
  guarded(known: boolean, cond: string | undefined, emit: () => void): void {
    const start = this.out.length;
    if (!known) this.out.push(`if (${cond}) {`);
    const before = this.out.length;
    emit();
    if (this.out.length === before) this.out.length = start;
    else if (!known) this.out.push("}");
  }

  closure(schema: unknown, x: string, rel: readonly Seg[]): void {
    const fn = this.const(this.cc.compile(schema, this.base, true) satisfies Check);
    const r = this.name("r");
    if (rel.length > 0) this.out.push(`s.path.push(${rel.map(segValue).join(", ")});`);
    this.out.push(`const ${r} = ${fn}(${x}, s, null);`);
    if (rel.length > 0) this.out.push(`s.path.length -= ${rel.length};`);
    this.out.push(`if (!${r}) { if (s.stop) return false; ok = false; }`);
  }

  constEnum(schema: SchemaObject, x: string, rel: readonly Seg[]): void {
    if (Object.hasOwn(schema, "const")) {
      const value = schema["const"];
      this.out.push(isScalar(value) ? `if (${x} !== ${lit(value)}) {` : `if (!h.eq(${x}, ${this.const(value)})) {`);
      this.fail(rel, "enum", schemaMessage(schema, "enum", M.const(value)));
      this.out.push("}");
    }
    const values = schema["enum"];
    if (Array.isArray(values)) {
      const test = values.every(isScalar) ? `${this.const(new Set(values))}.has(${x})` : `h.inEnum(${this.const(values)}, ${x})`;
      this.out.push(`if (!${test}) {`);
      this.fail(rel, "enum", schemaMessage(schema, "enum", M.enum(values)));
      this.out.push("}");
    }
  }

  string(schema: SchemaObject, x: string, rel: readonly Seg[]): void {
    const min = schema["minLength"];
    const max = schema["maxLength"];
    if (typeof min === "number" && min > 0) {
      this.out.push(`if (${x}.length < ${min} || (${x}.length < ${2 * min} && h.cpl(${x}) < ${min})) {`);
      this.fail(rel, "length", schemaMessage(schema, "length", M.minLength(min)));
      this.out.push(typeof max === "number" ? "} else " : "}");
    }
    if (typeof max === "number") {
      this.out.push(`if (${x}.length > ${max} && h.cpl(${x}) > ${max}) {`);
      this.fail(rel, "length", schemaMessage(schema, "length", M.maxLength(max)));
      this.out.push("}");
    }
    const pattern = schema["pattern"];
    if (typeof pattern === "string") {
      this.out.push(`if (!${this.const(new RegExp(pattern, "u"))}.test(${x})) {`);
      this.fail(rel, "regex", schemaMessage(schema, "regex", M.pattern(pattern)));
      this.out.push("}");
    }
    const format = schema["format"];
    const check = typeof format === "string" ? this.cc.formatCheck(format) : undefined;
    if (check !== undefined) {
      const code = format === "email" ? "email" : "format";
      this.out.push(`if (!${this.const(check)}(${x})) {`);
      this.fail(rel, code, schemaMessage(schema, code, format === "email" ? M.email : M.format(format as string)));
      this.out.push("}");
    }
  }

  number(schema: SchemaObject, x: string, rel: readonly Seg[]): void {
    const rules: [string, string, (n: number) => string][] = [
      ["minimum", ">=", M.minimum], ["exclusiveMinimum", ">", M.exclusiveMinimum],
      ["maximum", "<=", M.maximum], ["exclusiveMaximum", "<", M.exclusiveMaximum],
    ];
    for (const [key, op, message] of rules) {
      const bound = schema[key];
      if (typeof bound !== "number") continue;
      this.out.push(`if (!(${x} ${op} ${lit(bound)})) {`);
      this.fail(rel, "range", schemaMessage(schema, "range", message(bound)));
      this.out.push("}");
    }
    const multipleOf = schema["multipleOf"];
    if (typeof multipleOf === "number") {
      this.out.push(`if (!h.mult(${x}, ${lit(multipleOf)})) {`);
      this.fail(rel, "multipleOf", schemaMessage(schema, "multipleOf", M.multipleOf(multipleOf)));
      this.out.push("}");
    }
  }

  object(schema: SchemaObject, x: string, rel: readonly Seg[], depth: number): void {
    const props = isObj(schema["properties"]) ? schema["properties"] : {};
    const names = Object.keys(props);
    // A key that also exists on Object.prototype needs an own-property check; others do not.
    const own = (k: string): string => (k in Object.prototype ? ` && Object.hasOwn(${x}, ${lit(k)})` : "");
    if (this.cc.settings.useDefaults) {
      for (const k of names) {
        const child = props[k];
        if (!isObj(child) || !Object.hasOwn(child, "default")) continue;
        const value = child["default"];
        const make = isScalar(value) ? lit(value) : `structuredClone(${this.const(value)})`;
        this.out.push(`if (${x}[${lit(k)}] === undefined) h.setOwn(${x}, ${lit(k)}, ${make});`);
      }
    }
    const required = schema["required"];
    if (Array.isArray(required)) {
      for (const k of required as string[]) {
        this.out.push(`if (${x}[${lit(k)}] === undefined${k in Object.prototype ? ` || !Object.hasOwn(${x}, ${lit(k)})` : ""}) {`);
        this.fail([...rel, { key: k }], "required", requiredMessage(schema, props[k]));
        this.out.push("}");
      }
    }
    for (const k of names) {
      const y = this.name("v");
      this.out.push(`let ${y} = ${x}[${lit(k)}];`, `if (${y} !== undefined${own(k)}) {`);
      const coerce = this.cc.settings.coerce ? coercerFor(props[k]) : null;
      if (coerce !== null) this.out.push(`{ const n = ${this.const(coerce)}(${y}); if (n !== ${y}) h.setOwn(${x}, ${lit(k)}, ${y} = n); }`);
      this.node(props[k], y, [...rel, { key: k }], depth + 1);
      this.out.push("}");
    }
    const additional = schema["additionalProperties"];
    if (additional !== undefined && additional !== true) {
      const key = this.name("k");
      const known = names.length === 0 ? "false" : names.length <= 8 ? names.map((n) => `${key} === ${lit(n)}`).join(" || ") : `${this.const(new Set(names))}.has(${key})`;
      this.out.push(`for (const ${key} of Object.keys(${x})) {`, `if (${known}) continue;`);
      if (additional === false) {
        this.fail([...rel, { keyVar: key }], "additionalProperties", schemaMessage(schema, "additionalProperties", M.additionalProperties));
      } else {
        const y = this.name("v");
        this.out.push(`let ${y} = ${x}[${key}];`);
        const coerce = this.cc.settings.coerce ? coercerFor(additional) : null;
        if (coerce !== null) this.out.push(`{ const n = ${this.const(coerce)}(${y}); if (n !== ${y}) h.setOwn(${x}, ${key}, ${y} = n); }`);
        this.node(additional, y, [...rel, { keyVar: key }], depth + 1);
      }
      this.out.push("}");
    }
    const min = schema["minProperties"];
    const max = schema["maxProperties"];
    if (typeof min === "number" || typeof max === "number") {
      const count = this.name("n");
      this.out.push(`const ${count} = Object.keys(${x}).length;`);
      if (typeof min === "number") {
        this.out.push(`if (${count} < ${min}) {`);
        this.fail(rel, "minProperties", schemaMessage(schema, "minProperties", M.minProperties(min)));
        this.out.push("}");
      }
      if (typeof max === "number") {
        this.out.push(`if (${count} > ${max}) {`);
        this.fail(rel, "maxProperties", schemaMessage(schema, "maxProperties", M.maxProperties(max)));
        this.out.push("}");
      }
    }
  }

  array(schema: SchemaObject, x: string, rel: readonly Seg[], depth: number): void {
    const min = schema["minItems"];
    const max = schema["maxItems"];
    if (typeof min === "number") {
      this.out.push(`if (${x}.length < ${min}) {`);
      this.fail(rel, "minItems", schemaMessage(schema, "minItems", M.minItems(min)));
      this.out.push("}");
    }
    if (typeof max === "number") {
      this.out.push(`if (${x}.length > ${max}) {`);
      this.fail(rel, "maxItems", schemaMessage(schema, "maxItems", M.maxItems(max)));
      this.out.push("}");
    }
    // prefixItems reaches here only from the kernel's compiler (keel/schema's handles it in closures).
    const prefix = Array.isArray(schema["prefixItems"]) ? (schema["prefixItems"] as unknown[]) : [];
    prefix.forEach((sub, j) => {
      const y = this.name("v");
      const coerce = this.cc.settings.coerce ? coercerFor(sub) : null;
      this.out.push(`if (${x}.length > ${j}) {`, `let ${y} = ${x}[${j}];`);
      if (coerce !== null) this.out.push(`${y} = ${x}[${j}] = ${this.const(coerce)}(${y});`);
      this.node(sub, y, [...rel, { index: String(j) }], depth + 1);
      this.out.push("}");
    });
    const items = schema["items"];
    if (items === false) {
      this.out.push(`if (${x}.length > ${prefix.length}) {`);
      this.fail(rel, "items", schemaMessage(schema, "items", M.maxItems(prefix.length)));
      this.out.push("}");
    } else if (items !== undefined && items !== true) {
      const i = this.name("i");
      const y = this.name("v");
      const coerce = this.cc.settings.coerce ? coercerFor(items) : null;
      this.out.push(`for (let ${i} = ${prefix.length}; ${i} < ${x}.length; ${i}++) {`, `let ${y} = ${x}[${i}];`);
      if (coerce !== null) this.out.push(`${y} = ${x}[${i}] = ${this.const(coerce)}(${y});`);
      this.node(items, y, [...rel, { index: i }], depth + 1);
      this.out.push("}");
    }
    if (schema["uniqueItems"] === true) {
      const d = this.name("d");
      this.out.push(`const ${d} = h.dup(${x});`, `if (${d} >= 0) {`);
      this.fail([...rel, { index: d }], "uniqueItems", schemaMessage(schema, "uniqueItems", M.uniqueItems));
      this.out.push("}");
    }
  }
}

/** Index of the first duplicate item, or -1 (linear: scalars in a Set, structures by canonical key). */
function firstDuplicate(list: readonly unknown[]): number {
  if (list.length < 2) return -1;
  const seen = new Set<unknown>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const key = typeof item === "object" && item !== null ? canonicalKey(item) : typeof item === "string" ? `s${item}` : item;
    if (seen.has(key)) return i;
    seen.add(key);
  }
  return -1;
}

const helpers = {
  cpl: codePointLength,
  mult: isMultipleOf,
  eq: jsonEqual,
  inEnum: (values: readonly unknown[], v: unknown): boolean => values.some((x) => jsonEqual(v, x)),
  dup: firstDuplicate,
  seg: (key: string, first: boolean): string => (PLAIN_KEY.test(key) ? (first ? key : `.${key}`) : `[${JSON.stringify(key)}]`),
  setOwn,
};

/**
 * Generates the check for a generatable schema object; null when code generation is unavailable.
 * When a caller needs annotations (`ev`, for unevaluated*), it defers to `annotating()`, the closure
 * twin, built on first use. Each generated function has its own call-site feedback, so many schemas
 * in one app do not make each other's calls megamorphic (a shared wrapper closure would).
 */
export function generateCheck(schema: SchemaObject, base: string, cc: CodegenHost, annotating: () => Check): GeneratedCheck | null {
  const gen = new Generator(cc, base);
  gen.node(schema, "v", [], 0);
  const body = `"use strict";\nlet twin = null;\nreturn function keelValidate(v, s, ev) {\n` +
    `if (ev !== null) return (twin ??= annotating())(v, s, ev);\nlet ok = true;\n${gen.out.join("\n")}\nreturn ok;\n};`;
  try {
    return new Function("c", "h", "annotating", body)(gen.consts, helpers, annotating) as GeneratedCheck;
  } catch (error) {
    if (error instanceof EvalError) return null; // --disallow-code-generation-from-strings
    throw error;
  }
}
