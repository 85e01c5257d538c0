// Schema resources by URI: `$id`s, `$anchor`s, `$dynamicAnchor`s and JSON pointers, so `$ref` and
// `$dynamicRef` resolve offline (meta-schemas, conformance remotes, OpenAPI schemas).
import type { JsonSchema } from "../plugin.js";

type SchemaObject = { readonly [k: string]: unknown };

/** Keywords whose value is a subschema, an array of subschemas or a map of subschemas. */
const SINGLE = ["items", "additionalItems", "not", "if", "then", "else", "contains", "additionalProperties",
  "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contentSchema"] as const;
const ARRAY = ["allOf", "anyOf", "oneOf", "prefixItems", "items"] as const;
const MAP = ["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"] as const;

export interface ResolvedSchema {
  schema: JsonSchema;
  /** Base URI (without fragment) in force at the target. */
  base: string;
}

function isObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Resolves `ref` against `base`; returns [uri without fragment, decoded fragment]. Throws on a bad URI. */
export function splitRef(ref: string, base: string): [string, string] {
  const href = new URL(ref, base).href;
  const hash = href.indexOf("#");
  if (hash < 0) return [href, ""];
  return [href.slice(0, hash), decodeURIComponent(href.slice(hash + 1))];
}

let anonymousCount = 0;

/** A fresh base URI for a schema without `$id` (relative refs inside it still resolve). */
export function anonymousBase(): string {
  anonymousCount += 1;
  return `https://keel.invalid/schema-${anonymousCount}/root.json`;
}

/**
 * Schema documents by URI, for `$ref`s to other documents: give it to `compileSchema(schema, { registry })`.
 *
 * @example
 * ```ts
 * const registry = new SchemaRegistry();
 * registry.add({ $id: "https://example.com/money.json", type: "integer", minimum: 0 });
 * const price = compileSchema({ $ref: "https://example.com/money.json" }, { registry });
 * ```
 * @see docs/features/schema.md
 */
export class SchemaRegistry {
  readonly #parent: SchemaRegistry | undefined;
  readonly #resources = new Map<string, JsonSchema>();
  readonly #anchors = new Map<string, SchemaObject>();
  readonly #dynamicAnchors = new Map<string, SchemaObject>();
  readonly #baseOf = new WeakMap<object, string>();

  constructor(parent?: SchemaRegistry) {
    this.#parent = parent;
  }

  /** Registers a document and every resource (`$id`) and anchor inside it. `uri` defaults to its `$id`. */
  add(schema: JsonSchema, uri?: string): void {
    let base = uri;
    if (base === undefined && isObject(schema) && typeof schema["$id"] === "string") base = splitRef(schema["$id"], "urn:keel:none")[0];
    if (base === undefined) throw new TypeError("SchemaRegistry.add: schema has no $id and no uri was given");
    base = splitRef(base, base)[0];
    this.#resources.set(base, schema);
    this.#index(schema, base, 0);
  }

  /** Whether a document is registered under this absolute URI. */
  has(uri: string): boolean {
    return this.#resources.has(uri) || (this.#parent?.has(uri) ?? false);
  }

  /** Base URI of a subschema indexed by `add`. */
  baseOf(schema: object): string | undefined {
    return this.#baseOf.get(schema) ?? this.#parent?.baseOf(schema);
  }

  /** The schema a `$dynamicAnchor` names within one resource. */
  dynamicAnchor(resource: string, name: string): ResolvedSchema | undefined {
    const found = this.#dynamicAnchors.get(`${resource}#${name}`);
    if (found !== undefined) return { schema: found, base: resource };
    return this.#parent?.dynamicAnchor(resource, name);
  }

  /** Resolves a `$ref` value against a base URI; undefined when the target is unknown. */
  resolve(ref: string, base: string): ResolvedSchema | undefined {
    const [uri, fragment] = splitRef(ref, base);
    const doc = this.#document(uri);
    if (doc === undefined) return undefined;
    if (fragment === "") return { schema: doc, base: uri };
    if (fragment.startsWith("/")) return this.#pointer(doc, uri, fragment);
    const anchored = this.#anchor(`${uri}#${fragment}`);
    return anchored === undefined ? undefined : { schema: anchored, base: uri };
  }

  #document(uri: string): JsonSchema | undefined {
    return this.#resources.get(uri) ?? (this.#parent === undefined ? undefined : this.#parent.#document(uri));
  }

  #anchor(key: string): SchemaObject | undefined {
    return this.#anchors.get(key) ?? (this.#parent === undefined ? undefined : this.#parent.#anchor(key));
  }

  #pointer(doc: JsonSchema, uri: string, pointer: string): ResolvedSchema | undefined {
    let node: unknown = doc;
    let base = uri;
    for (const raw of pointer.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) {
        if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
        node = node[Number(token)];
      } else if (isObject(node) && Object.hasOwn(node, token)) {
        node = node[token];
      } else {
        return undefined;
      }
      // A subschema with its own `$id` on the way changes the base, as indexing recorded.
      if (isObject(node)) base = this.baseOf(node) ?? base;
    }
    if (typeof node !== "boolean" && !isObject(node)) return undefined;
    return { schema: node, base };
  }

  #index(schema: unknown, base: string, depth: number): void {
    if (!isObject(schema) || depth > 10_000) return;
    let here = base;
    const id = schema["$id"];
    if (typeof id === "string") {
      here = splitRef(id, base)[0];
      if (!this.#resources.has(here)) this.#resources.set(here, schema);
    }
    if (!this.#baseOf.has(schema)) this.#baseOf.set(schema, here);
    const anchor = schema["$anchor"];
    if (typeof anchor === "string") this.#anchors.set(`${here}#${anchor}`, schema);
    const dynamic = schema["$dynamicAnchor"];
    if (typeof dynamic === "string") {
      this.#anchors.set(`${here}#${dynamic}`, schema);
      this.#dynamicAnchors.set(`${here}#${dynamic}`, schema);
    }
    for (const key of SINGLE) this.#index(schema[key], here, depth + 1);
    for (const key of ARRAY) {
      const list = schema[key];
      if (Array.isArray(list)) for (const item of list) this.#index(item, here, depth + 1);
    }
    for (const key of MAP) {
      const map = schema[key];
      if (isObject(map)) for (const k of Object.keys(map)) this.#index(map[k], here, depth + 1);
    }
  }
}
