// A tool's JSON Schemas, self-contained: the OpenAPI document points into
// `#/components/schemas/...`; an MCP client sees one schema per tool, so the components it uses
// (and the ones those use) are copied under `$defs` and the references rewritten to `#/$defs/...`.
import type { JsonSchema } from "../index.js";

const COMPONENT_PREFIX = "#/components/schemas/";
const DEFS_PREFIX = "#/$defs/";

/** Collects the components one tool's schemas reference, transitively. */
export class DefsCollector {
  readonly #components: Readonly<Record<string, JsonSchema>>;
  readonly #defs: Record<string, unknown> = {};

  constructor(components: Readonly<Record<string, JsonSchema>>) {
    this.#components = components;
  }

  /** `schema` with its component references rewritten (and the components copied). */
  rewrite(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.rewrite(item));
    if (typeof schema !== "object" || schema === null) return schema;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(COMPONENT_PREFIX)) {
        const name = value.slice(COMPONENT_PREFIX.length);
        this.#take(name);
        out[key] = DEFS_PREFIX + name;
      } else {
        out[key] = this.rewrite(value);
      }
    }
    return out;
  }

  /** The component a root `$ref` names, rewritten, or the schema itself: MCP wants `type: "object"` at the root. */
  inlineRoot(schema: unknown): unknown {
    if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
      const ref = (schema as Record<string, unknown>)["$ref"];
      if (typeof ref === "string" && ref.startsWith(COMPONENT_PREFIX) && Object.keys(schema).length === 1) {
        const target = this.#components[ref.slice(COMPONENT_PREFIX.length)];
        if (target !== undefined) return this.rewrite(target);
      }
    }
    return this.rewrite(schema);
  }

  #take(name: string): void {
    if (Object.hasOwn(this.#defs, name)) return;
    const target = this.#components[name];
    this.#defs[name] = true; // placeholder first: a recursive schema refers to itself
    this.#defs[name] = target === undefined ? {} : this.rewrite(target);
  }

  /** `schema` with the collected `$defs` added (none: unchanged). */
  withDefs(schema: Record<string, unknown>): Record<string, unknown> {
    return Object.keys(this.#defs).length === 0 ? schema : { ...schema, $defs: { ...this.#defs } };
  }
}
