// A response schema compiled into a JSON serializer (the idea of fast-json-stringify): one
// generated function per schema node writes the JSON text straight from the value, reading only
// the properties the schema names. A property the schema does not list is never written (an
// object carrying a password hash sends only what its schema allows), and a value whose shape
// does not fit (wrong type, a required property missing, a value outside an enum or const) throws
// a SerializationMismatch naming where and what, instead of sending a silently different body.
//
// What is checked here is the shape: types, required properties, enum and const. Value rules
// (lengths, patterns, formats, ranges) are the validator's: a route that wants them checked on
// the way out runs the compiled validator first (see lib/core/response-contract.ts).
//
// A list of 8 or more items is first checked by a generated predicate ("fits"): when the list is
// exactly what the writer would produce (plain objects holding only listed, enumerable properties
// of the right types; nothing to convert or leave out), JSON.stringify writes it, which on a 64 KB
// list is faster than generated code and leaves one flat string. Anything else is written
// property by property as above.
//
// Keywords with no direct serialization (allOf, if/then/else, not, patternProperties, dependent*
// and unevaluated*) make that node validate with the full validator and then write
// JSON.stringify's text. Safety of the generated code: schema text only ever enters it as JSON
// string literals; every other constant is passed in the constants array.
import { refTarget } from "./schema-marks.js";
import { compileSchema, namedSchemasWithin } from "./compile.js";
import { jsonEqual } from "./json-equal.js";
import type { JsonSchema } from "./types.js";
import { defined } from "../util/defined.js";
import { jsonString } from "../util/json-string.js";

import { SerializationMismatch, type Serializer } from "./serializer-mismatch.js";

export { SerializationMismatch, type Serializer } from "./serializer-mismatch.js";

type SchemaObject = { readonly [k: string]: unknown };

export interface SerializerOptions {
  /** Named schemas reachable as `#/components/schemas/<name>` (what `t.ref("Name")` emits). */
  components?: Readonly<Record<string, JsonSchema>>;
}

/** A short, value-free description of what was found (values may be secrets: never quoted). */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : Number.isFinite(v) ? "number" : String(v);
  return typeof v;
}

function mismatch(expected: string, v: unknown): SerializationMismatch {
  return new SerializationMismatch(expected, kindOf(v));
}

/** Prefix the mismatch's path with one step (called while the error travels up). */
function at(err: unknown, segment: string | number): unknown {
  if (err instanceof SerializationMismatch) err.segments.unshift(segment);
  return err;
}

/** JSON.stringify for a schema that accepts anything: undefined, functions and symbols do not fit. */
function anyJson(v: unknown): string {
  const s = JSON.stringify(v);
  if (s === undefined) throw mismatch("a JSON value", v);
  return s;
}

/** Lists at least this long are checked, then written by JSON.stringify when nothing needs leaving out. */
const NATIVE_MIN_ITEMS = 8;
const KNOWN_TYPES = new Set(["string", "integer", "number", "boolean", "null", "object", "array"]);
/** Keywords handled by validating, then writing JSON.stringify's text. */
const VALIDATE_THEN_STRINGIFY = [
  "allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "dependentRequired",
  "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef", "propertyNames", "contains",
];
/** Object-prototype names: a plain `v[k]` would find them on any object, so read own properties only. */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));
const lit = (v: unknown): string => JSON.stringify(v) as string;

/** A JSON string literal (the generated code calls it `str`). */
const str = jsonString;

class SerializerCompiler {
  readonly #options: SerializerOptions;
  readonly #names = new Map<object | boolean, string>();
  readonly #fitNames = new Map<object | boolean, string>();
  readonly #functions: string[] = [];
  /** Module-level constants of the generated code (branch lists, enum checks): made once, not per call. */
  readonly #hoisted: string[] = [];
  /** Constants the generated code reads as c[i]. */
  readonly constants: unknown[] = [];

  /** The schema being compiled: `#` and `#/$defs/...` pointers resolve against it. */
  readonly #root: JsonSchema;
  /** Whether a subschema sets its own `$id` (then pointers may not mean the root: refused). */
  readonly #nestedIds: boolean;

  constructor(root: JsonSchema, options: SerializerOptions) {
    this.#options = options;
    this.#root = root;
    this.#nestedIds = hasNestedId(root);
  }

  #constant(value: unknown): string {
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  #hoist(code: string): string {
    const name = `h${this.#hoisted.length}`;
    this.#hoisted.push(`const ${name} = ${code};`);
    return name;
  }

  /** The generated function's name for `schema`, generating it on first use (recursion-safe). */
  nameFor(schema: JsonSchema): string {
    const key = schema as object | boolean;
    const known = this.#names.get(key);
    if (known !== undefined) return known;
    const name = `s${this.#names.size}`;
    this.#names.set(key, name);
    this.#functions.push(this.#generate(name, schema));
    return name;
  }

  source(root: string): string {
    return `${this.#functions.join("\n")}\n${this.#hoisted.join("\n")}\nreturn ${root};`;
  }

  /**
   * The name of a generated `(v) => boolean` that is true only when JSON.stringify(v) writes
   * exactly what the serializer would: the shape fits, and there is nothing to leave out or
   * convert (no unlisted or non-enumerable property, no toJSON, no bigint, no class instance, no
   * union to choose a branch of). False sends the value through the writer, which projects and
   * reports mismatches; so a false answer is always safe.
   */
  fitsFor(schema: JsonSchema): string {
    const key = schema as object | boolean;
    const known = this.#fitNames.get(key);
    if (known !== undefined) return known;
    const name = `f${this.#fitNames.size}`;
    this.#fitNames.set(key, name);
    this.#functions.push(`function ${name}(v) {\n${this.#fitsBody(schema)}\n}`);
    return name;
  }

  #fitsBody(schema: JsonSchema): string {
    if (schema === true) return "return v !== undefined && typeof v !== \"bigint\" && typeof v !== \"function\" && typeof v !== \"symbol\";";
    if (schema === false) return "return false;";
    const s = schema as SchemaObject;
    if (typeof s["$ref"] === "string") {
      const rest = Object.keys(s).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k));
      return rest.length === 0 ? `return ${this.fitsFor(this.#resolve(s))}(v);` : "return false;";
    }
    if (VALIDATE_THEN_STRINGIFY.some((k) => s[k] !== undefined)) return "return false;";
    const lines: string[] = [];
    const allowed: unknown[] | null = Array.isArray(s["enum"]) ? (s["enum"] as unknown[]) : s["const"] !== undefined ? [s["const"]] : null;
    if (allowed !== null) {
      if (!allowed.every((x) => x === null || typeof x !== "object")) return "return false;";
      lines.push(`if (!${this.#constant(new Set(allowed))}.has(v)) return false;`);
    }
    const unions = (s["anyOf"] ?? s["oneOf"]) as JsonSchema[] | undefined;
    if (Array.isArray(unions)) {
      // Only `X or null` (t.nullable) has one branch the writer would pick for a given value.
      const others = unions.filter((b) => !isNullSchema(b));
      if (unions.length !== 2 || others.length !== 1) return "return false;";
      lines.push(`return v === null || ${this.fitsFor(others[0]!)}(v);`);
      return lines.join("\n");
    }
    const declared = s["type"];
    const types: string[] = typeof declared === "string" ? [declared] : Array.isArray(declared) ? (declared as string[]) : [];
    if (types.length === 0) {
      for (const t of impliedTypes(s)) lines.push(this.#fitsType(t, s));
      lines.push("return v !== undefined && typeof v !== \"bigint\" && typeof v !== \"function\" && typeof v !== \"symbol\" && (typeof v !== \"number\" || Number.isFinite(v));");
      return lines.join("\n");
    }
    for (const t of types) lines.push(this.#fitsType(t, s));
    lines.push("return false;");
    return lines.join("\n");
  }

  #fitsType(type: string, s: SchemaObject): string {
    switch (type) {
      case "null":
        return "if (v === null) return true;";
      case "boolean":
        return "if (typeof v === \"boolean\") return true;";
      case "integer":
        return "if (typeof v === \"number\") return Number.isInteger(v);";
      case "number":
        return "if (typeof v === \"number\") return Number.isFinite(v);";
      case "string":
        return "if (typeof v === \"string\") return true;";
      case "array": {
        if (s["prefixItems"] !== undefined) return "if (Array.isArray(v)) return false;";
        const items = s["items"];
        if (items === false) return "if (Array.isArray(v)) return v.length === 0 && typeof v.toJSON !== \"function\";";
        const itemSchema = items === undefined ? true : (items as JsonSchema);
        const test = inlineFits(itemSchema) ?? `${this.fitsFor(itemSchema)}(x)`;
        return `if (Array.isArray(v)) { if (typeof v.toJSON === "function") return false; for (let i = 0; i < v.length; i++) { const x = v[i]; if (!(${test})) return false; } return true; }`;
      }
      default: {
        const extra = s["additionalProperties"];
        if (extra !== undefined && extra !== false) return "if (typeof v === \"object\" && v !== null && !Array.isArray(v)) return false;";
        const props = (typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : {}) as Record<string, JsonSchema>;
        const required = new Set(Array.isArray(s["required"]) ? (s["required"] as string[]) : []);
        for (const key of required) if (!Object.hasOwn(props, key)) return "if (typeof v === \"object\" && v !== null && !Array.isArray(v)) return false;";
        const keys = Object.keys(props);
        const lines = [
          "if (typeof v === \"object\" && v !== null && !Array.isArray(v)) {",
          // Plain objects only: a class instance's getters and prototype fields are not JSON.stringify's to see.
          "const p = Object.getPrototypeOf(v); if ((p !== Object.prototype && p !== null) || typeof v.toJSON === \"function\") return false;",
          "let m = 0; let x;",
        ];
        for (const key of keys) {
          const read = INHERITED.has(key) ? `x = Object.hasOwn(v, ${lit(key)}) ? v[${lit(key)}] : undefined;` : `x = v[${lit(key)}];`;
          const absent = required.has(key) ? "return false;" : "";
          const test = inlineFits(props[key]!) ?? `${this.fitsFor(props[key]!)}(x)`;
          lines.push(`${read} if (x === undefined) { ${absent} } else { if (!(${test})) return false; m++; }`);
        }
        // Every enumerable key is listed and counted: an unlisted one, or a listed one that is not
        // enumerable (JSON.stringify would skip it), sends the value to the writer.
        // (A listed key holding undefined counts in n and not in m: the writer handles that rare case.)
        if (keys.length === 0) lines.push("let n = 0; for (const k in v) return false;");
        else lines.push(`let n = 0; for (const k in v) { switch (k) { ${keys.map((k) => `case ${lit(k)}:`).join(" ")} n++; break; default: return false; } }`);
        lines.push("return n === m; }");
        return lines.join("\n");
      }
    }
  }

  #resolve(schema: SchemaObject): JsonSchema {
    const target = refTarget(schema);
    if (target !== undefined) return target;
    const ref = schema["$ref"];
    const prefix = "#/components/schemas/";
    if (typeof ref === "string" && ref.startsWith(prefix)) {
      const name = decodeURIComponent(ref.slice(prefix.length));
      const components = this.#options.components;
      if (components !== undefined && Object.hasOwn(components, name)) return components[name]!;
    }
    if (typeof ref === "string" && ref.startsWith("#") && !this.#nestedIds) {
      const target = resolvePointer(this.#root, ref.slice(1));
      if (target !== undefined) return target;
    }
    throw new TypeError(`response schema: cannot resolve $ref ${JSON.stringify(ref)} (pass the named schema, or components)`);
  }

  #generate(name: string, schema: JsonSchema): string {
    if (schema === true) return `function ${name}(v) { return anyJson(v); }`;
    if (schema === false) return `function ${name}(v) { throw mismatch("nothing (false schema)", v); }`;
    const s = schema as SchemaObject;
    if (typeof s["$ref"] === "string") {
      const target = this.nameFor(this.#resolve(s));
      // Siblings of $ref (2020-12 allows them) other than annotations: check them as well.
      const rest = Object.keys(s).filter((k) => k !== "$ref" && !ANNOTATIONS.has(k));
      if (rest.length === 0) return `function ${name}(v) { return ${target}(v); }`;
    }
    if (VALIDATE_THEN_STRINGIFY.some((k) => s[k] !== undefined) || typeof s["$ref"] === "string") {
      const check = compileSchema(s as JsonSchema, { ...(this.#options.components ? { components: this.#options.components } : {}), formats: "annotate" });
      return `function ${name}(v) { const e = ${this.#constant(check)}.validate(v); if (e !== null) throw invalid(e); return anyJson(v); }`;
    }
    const body: string[] = [];
    const unions = (s["anyOf"] ?? s["oneOf"]) as JsonSchema[] | undefined;
    if (Array.isArray(unions)) {
      // The first branch the value fits decides (oneOf's "exactly one" is the validator's job).
      // A null alternative (t.nullable) is answered without trying the others.
      if (unions.some(isNullSchema)) body.push(`if (v === null) return ${this.#valueCheck(s)}(v, "null");`);
      const branches = this.#hoist(`[${unions.map((b) => this.nameFor(b)).join(", ")}]`);
      const check = this.#valueCheck(s);
      body.push(`for (let i = 0; i < ${branches}.length; i++) { try { return ${check}(v, ${branches}[i](v)); } catch (e) { if (!(e instanceof Mismatch)) throw e; } }`);
      body.push(`throw mismatch(${lit(`one of ${unions.length} alternatives`)}, v);`);
      return `function ${name}(v) {\n${body.join("\n")}\n}`;
    }
    const declared = s["type"];
    const types: string[] = typeof declared === "string" ? [declared] : Array.isArray(declared) ? (declared as string[]) : [];
    for (const t of types) if (!KNOWN_TYPES.has(t)) throw new TypeError(`response schema: unknown type ${JSON.stringify(t)}`);
    const valueCheck = s["enum"] !== undefined || s["const"] !== undefined ? this.#valueCheck(s) : null;
    const ret = (expr: string): string => (valueCheck === null ? `return ${expr};` : `return ${valueCheck}(v, ${expr});`);
    if (types.length === 0) {
      // No `type`: object and array keywords apply to values of that kind; anything else is any JSON.
      for (const t of impliedTypes(s)) body.push(this.#typeBranch(t, s, ret));
      body.push(ret("anyJson(v)"));
    } else {
      for (const t of types) body.push(this.#typeBranch(t, s, ret));
      // JSON.stringify would call toJSON (a Date for a date-time string): do the same, then retry.
      body.push(`if (v !== null && typeof v === "object" && typeof v.toJSON === "function") return ${name}(v.toJSON());`);
      body.push(`throw mismatch(${lit(types.join(" or "))}, v);`);
    }
    return `function ${name}(v) {\n${body.join("\n")}\n}`;
  }

  /** `(v, text) => text` after checking enum/const (by JSON equality for objects and arrays). */
  #valueCheck(s: SchemaObject): string {
    const allowed: unknown[] | null = Array.isArray(s["enum"]) ? (s["enum"] as unknown[]) : s["const"] !== undefined ? [s["const"]] : null;
    if (allowed === null) return "((v, text) => text)";
    const primitives = allowed.every((x) => x === null || typeof x !== "object");
    const set = this.#constant(primitives ? new Set(allowed) : allowed);
    const test = primitives ? `${set}.has(v)` : `${set}.some((x) => jsonEqual(x, v))`;
    const expected = lit(s["enum"] !== undefined ? "one of the enum values" : "the const value");
    return this.#hoist(`(v, text) => { if (!(${test})) throw mismatch(${expected}, v); return text; }`);
  }

  #typeBranch(type: string, s: SchemaObject, ret: (expr: string) => string): string {
    switch (type) {
      case "null":
        return `if (v === null) ${ret('"null"')}`;
      case "boolean":
        return `if (v === true) ${ret('"true"')} if (v === false) ${ret('"false"')}`;
      case "integer":
        return `if (typeof v === "number" ? Number.isInteger(v) : typeof v === "bigint") ${ret('"" + v')}`;
      case "number":
        return `if (typeof v === "number" && Number.isFinite(v)) ${ret('"" + v')}`;
      case "string":
        return `if (typeof v === "string") ${ret("str(v)")}`;
      case "array":
        // A long list that is exactly what the schema writes (see #fits) goes to JSON.stringify:
        // native code writes it faster than any generated code, and as one flat string.
        return `if (Array.isArray(v)) { if (v.length >= ${NATIVE_MIN_ITEMS} && ${this.fitsFor(s)}(v)) ${ret("JSON.stringify(v)")} ${this.#arrayBody(s)} ${ret("o")} }`;
      default:
        return `if (typeof v === "object" && v !== null && !Array.isArray(v) && typeof v.toJSON !== "function") { ${this.#objectBody(s)} ${ret("o")} }`;
    }
  }

  #objectBody(s: SchemaObject): string {
    const props = (typeof s["properties"] === "object" && s["properties"] !== null ? s["properties"] : {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(s["required"]) ? (s["required"] as string[]) : []);
    const lines: string[] = ['let o = "{"; let sep = ""; let x;'];
    for (const key of Object.keys(props)) {
      const fn = this.nameFor(props[key]!);
      const read = INHERITED.has(key) ? `x = Object.hasOwn(v, ${lit(key)}) ? v[${lit(key)}] : undefined;` : `x = v[${lit(key)}];`;
      const absent = required.has(key) ? `else throw at(new Mismatch("a value", "nothing"), ${lit(key)});` : "";
      lines.push(`${read} if (x !== undefined) { try { o += sep + ${lit(lit(key) + ":")} + ${fn}(x); } catch (e) { throw at(e, ${lit(key)}); } sep = ","; } ${absent}`);
    }
    // A required name with no property schema must still be present (any JSON value).
    for (const key of required) {
      if (Object.hasOwn(props, key)) continue;
      lines.push(`x = v[${lit(key)}]; if (x === undefined) throw at(new Mismatch("a value", "nothing"), ${lit(key)}); o += sep + ${lit(lit(key) + ":")} + anyJson(x); sep = ",";`);
    }
    const extra = s["additionalProperties"];
    // Unlisted properties go out only when the schema says so (true or a schema), never by default.
    if (extra !== undefined && extra !== false) {
      const fn = this.nameFor(extra as JsonSchema);
      const known = this.#constant(new Set([...Object.keys(props), ...required]));
      lines.push(`for (const k in v) { if (!Object.hasOwn(v, k) || ${known}.has(k)) continue; x = v[k]; if (x === undefined) continue; try { o += sep + JSON.stringify(k) + ":" + ${fn}(x); } catch (e) { throw at(e, k); } sep = ","; }`);
    }
    lines.push('o += "}";');
    return lines.join("\n");
  }

  #arrayBody(s: SchemaObject): string {
    const prefix = Array.isArray(s["prefixItems"]) ? (s["prefixItems"] as JsonSchema[]).map((p) => this.nameFor(p)) : [];
    const items = s["items"];
    const rest = items === undefined || items === true ? "anyJson" : items === false ? null : this.nameFor(items as JsonSchema);
    const lines = ['let o = "[";'];
    const p = prefix.length > 0 ? this.#hoist(`[${prefix.join(", ")}]`) : "";
    if (rest === null) lines.push(`if (v.length > ${prefix.length}) throw mismatch(${lit(`at most ${prefix.length} items`)}, v);`);
    const pick = prefix.length > 0 ? `(i < ${p}.length ? ${p}[i] : ${rest ?? "anyJson"})` : (rest ?? "anyJson");
    lines.push(`for (let i = 0; i < v.length; i++) { const x = v[i]; if (x === undefined) throw at(new Mismatch("a value", "nothing"), i); try { o += (i === 0 ? "" : ",") + ${pick}(x); } catch (e) { throw at(e, i); } }`);
    lines.push('o += "]";');
    return lines.join("\n");
  }
}

const ANNOTATIONS = new Set(["title", "description", "examples", "deprecated", "readOnly", "writeOnly", "default", "$comment", "x-message", "x-messages"]);

/** The fits-test of a plain primitive schema as an expression on `x` (no call), or null. */
function inlineFits(schema: JsonSchema): string | null {
  if (typeof schema !== "object" || schema === null) return null;
  const keys = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k) && k !== "format" && k !== "minLength" && k !== "maxLength" && k !== "pattern" && k !== "minimum" && k !== "maximum" && k !== "exclusiveMinimum" && k !== "exclusiveMaximum" && k !== "multipleOf");
  if (keys.length !== 1 || keys[0] !== "type") return null;
  switch (schema["type"]) {
    case "string":
      return 'typeof x === "string"';
    case "integer":
      return 'typeof x === "number" && Number.isInteger(x)';
    case "number":
      return 'typeof x === "number" && Number.isFinite(x)';
    case "boolean":
      return 'typeof x === "boolean"';
    case "null":
      return "x === null";
    default:
      return null;
  }
}

/** The subschema at JSON pointer `pointer` ("" or "/$defs/a~1b") inside `root`, if there is one. */
function resolvePointer(root: JsonSchema, pointer: string): JsonSchema | undefined {
  let node: unknown = root;
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined; // a plain-name fragment is an $anchor: not resolved here
  for (const raw of pointer.slice(1).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === "boolean" || (typeof node === "object" && node !== null && !Array.isArray(node)) ? (node as JsonSchema) : undefined;
}

/** Whether a schema below the root declares `$id` (a new base for the pointers under it). */
function hasNestedId(root: JsonSchema): boolean {
  const stack: unknown[] = [];
  if (typeof root === "object" && root !== null) for (const v of Object.values(root)) stack.push(v);
  const seen = new Set<object>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node) && typeof (node as Record<string, unknown>)["$id"] === "string") return true;
    for (const v of Object.values(node)) stack.push(v);
  }
  return false;
}

function isNullSchema(b: JsonSchema): boolean {
  return typeof b === "object" && b !== null && b["type"] === "null" && Object.keys(b).length === 1;
}

/** The kinds a schema without `type` still shapes: `properties` apply to objects, `items` to arrays. */
function impliedTypes(s: SchemaObject): string[] {
  const out: string[] = [];
  if (s["properties"] !== undefined || s["required"] !== undefined || s["additionalProperties"] !== undefined) out.push("object");
  if (s["items"] !== undefined || s["prefixItems"] !== undefined) out.push("array");
  return out;
}

function invalid(errors: ReadonlyArray<{ field: string; message: string }>): SerializationMismatch {
  const first = errors[0];
  const err = new SerializationMismatch(first === undefined ? "a valid value" : first.message, "a value that fails its schema");
  if (first !== undefined && first.field !== "") err.segments.push(first.field);
  return err;
}

/**
 * Compile `schema` into `(value) => json`. Throws a TypeError at compile time for a schema it
 * cannot serialize (an unresolvable $ref, an unknown type); the serializer throws
 * SerializationMismatch for a value that does not fit.
 */
export function compileSerializer(schema: JsonSchema, options: SerializerOptions = {}): Serializer {
  // As compileSchema does: a t.ref("Name") inside a t.named("Name") finds it without components.
  const components = options.components ?? namedSchemasWithin(schema);
  const compiler = new SerializerCompiler(schema, defined({ components }));
  const root = compiler.nameFor(schema);
  const factory = new Function("c", "anyJson", "mismatch", "at", "Mismatch", "jsonEqual", "invalid", "str", compiler.source(root));
  return factory(compiler.constants, anyJson, mismatch, at, SerializationMismatch, jsonEqual, invalid, str) as Serializer;
}
