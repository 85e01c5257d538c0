// Turns keel schemas into OpenAPI 3.1 Schema Objects: `t.named` schemas are hoisted once into
// components.schemas and referenced with `$ref` (nested ones too), keel-internal `x-keel-*` keywords
// are dropped (they hold functions), and a 3.0-style `nullable: true` becomes a 3.1 type list.
// Other `x-` keywords (`x-message`, `x-messages`) are kept: OAS allows extensions in Schema Objects.
import { isDeepStrictEqual } from "node:util";
import { refTarget, schemaName } from "../plugin.js";
import type { JsonSchema } from "../index.js";

type SchemaObject = { readonly [k: string]: unknown };

/** Keywords whose value is one subschema (`items` is handled apart: a list in draft-07 style). */
const SINGLE = new Set(["additionalItems", "not", "if", "then", "else", "contains", "additionalProperties",
  "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contentSchema"]);
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** Deeper than this is a cyclic or absurd raw schema, not documentation. */
const MAX_DEPTH = 200;

export const COMPONENT_SCHEMA_PREFIX = "#/components/schemas/";

function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A JSON value copied into plain data (`enum`, `const`, `default`, `examples`...). */
function copyJson(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RangeError("keel openapi: schema value nested too deeply (cyclic?)");
  if (Array.isArray(value)) return value.map((v) => copyJson(v, depth + 1));
  if (isObject(value)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(value)) out[k] = copyJson(value[k], depth + 1);
    return out;
  }
  return value;
}

function nullableType(type: unknown): unknown {
  if (typeof type === "string") return type === "null" ? type : [type, "null"];
  if (Array.isArray(type)) return type.includes("null") ? type : [...type, "null"];
  return type;
}

export class SchemaCollector {
  /** name -> converted schema, in the order first met. */
  readonly components: Record<string, JsonSchema> = Object.create(null);
  readonly #nameOf = new Map<object, string>();
  readonly #sourceOf = new Map<string, object>();

  /** The OpenAPI form of `schema`; named schemas (also the root) become a `$ref`. */
  convert(schema: JsonSchema): JsonSchema {
    return this.#convert(schema, 0, false);
  }

  /** Registers a schema under `name` explicitly (options.schemas, the error bodies). */
  define(name: string, schema: JsonSchema): void {
    this.#register(name, schema, 0);
  }

  /** The schema behind a `$ref`/named wrapper, for callers that need its properties (query schemas). */
  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let i = 0; i < 32 && isObject(current); i++) {
      const target = refTarget(current);
      if (target !== undefined) {
        current = target;
        continue;
      }
      const ref = current["$ref"];
      if (typeof ref === "string" && ref.startsWith(COMPONENT_SCHEMA_PREFIX)) {
        const source = this.#sourceOf.get(ref.slice(COMPONENT_SCHEMA_PREFIX.length));
        if (source !== undefined && source !== current) {
          current = source as JsonSchema;
          continue;
        }
      }
      break;
    }
    return current;
  }

  #register(name: string, schema: JsonSchema, depth: number): void {
    if (typeof schema === "object" && this.#nameOf.get(schema) === name) return;
    const existing = this.#sourceOf.get(name);
    if (existing === undefined) {
      this.#sourceOf.set(name, schema as object);
      if (typeof schema === "object") this.#nameOf.set(schema, name);
      // A placeholder first, so a schema that refers back to itself finds its name taken.
      this.components[name] = true;
      this.components[name] = this.#convert(schema, depth + 1, true);
      return;
    }
    // Two distinct objects with one name: fine when they say the same thing (t.named twice).
    const converted = this.#convert(schema, depth + 1, true);
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(converted)), JSON.parse(JSON.stringify(this.components[name])))) {
      throw new TypeError(`keel openapi: two different schemas are both named "${name}"`);
    }
    if (typeof schema === "object") this.#nameOf.set(schema, name);
  }

  #convert(schema: JsonSchema, depth: number, isComponentRoot: boolean): JsonSchema {
    if (typeof schema === "boolean") return schema;
    if (!isObject(schema)) throw new TypeError("keel openapi: a schema must be an object or a boolean");
    if (depth > MAX_DEPTH) throw new RangeError("keel openapi: schema nested too deeply (cyclic?)");
    const name = schemaName(schema);
    if (name !== undefined && !isComponentRoot) {
      this.#register(name, schema, depth);
      return { $ref: COMPONENT_SCHEMA_PREFIX + name };
    }
    const target = refTarget(schema);
    if (target !== undefined) {
      const targetName = schemaName(target);
      if (targetName !== undefined) this.#register(targetName, target, depth);
    }
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(schema)) {
      if (key.startsWith("x-keel-")) continue;
      const value = schema[key];
      if (value === undefined) continue;
      if (SINGLE.has(key) || (key === "items" && !Array.isArray(value))) {
        out[key] = this.#sub(value, depth);
      } else if (LIST.has(key) || (key === "items" && Array.isArray(value))) {
        out[key] = Array.isArray(value) ? value.map((v) => this.#sub(v, depth)) : copyJson(value, depth);
      } else if (MAP.has(key) && isObject(value)) {
        const map: Record<string, unknown> = Object.create(null);
        for (const k of Object.keys(value)) map[k] = this.#sub(value[k], depth);
        out[key] = map;
      } else {
        out[key] = copyJson(value, depth);
      }
    }
    if (out["nullable"] === true) {
      delete out["nullable"];
      if (out["type"] !== undefined) out["type"] = nullableType(out["type"]);
    } else if (out["nullable"] === false) {
      delete out["nullable"];
    }
    return out;
  }

  #sub(value: unknown, depth: number): unknown {
    if (typeof value === "boolean" || isObject(value)) return this.#convert(value, depth + 1, false);
    return copyJson(value, depth);
  }
}
