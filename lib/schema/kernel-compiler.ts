// The kernel's schema compiler: generated code (codegen.ts) for everything `t` builds, and no
// more. Local keywords, the applicators `t.union`/`t.nullable`/`t.tuple`/`t.named` emit (anyOf,
// oneOf, allOf, not, prefixItems), the common formats, and `$ref`s as `t.ref` makes them (linked
// to their target, or `#/components/schemas/<name>` naming a `t.named` schema). Whatever else
// keel/schema's engine enforces ($ref into $defs or other documents, $dynamicRef, $id, $schema,
// unevaluated*, if/then/else, dependent*, patternProperties, propertyNames, contains, async rules,
// the long-tail formats) is refused here with an error naming keel/schema, at compile time, i.e.
// when the route or extractor is built: never validated with fewer rules than the schema states.
import { refTarget } from "./schema-marks.js";
import { isGeneratable, generateCheck, type CodegenHost } from "./codegen.js";
import { commonFormats, ENGINE_FORMATS } from "./formats.js";
import type { JsonSchema } from "./json-schema.js";
import type { Check } from "./state.js";

type SchemaObject = { readonly [k: string]: unknown };

/** A schema needs keel/schema's engine, which was not imported. */
export class SchemaEngineRequired extends Error {
  constructor(readonly keyword: string) {
    super(`${keyword} needs keel/schema, the full JSON Schema 2020-12 engine: add import "keel/schema" (it registers itself) to compile this schema`);
    this.name = "SchemaEngineRequired";
  }
}

const alwaysValid: Check = () => true;
const neverValid: Check = (_v, s) => {
  s.report("forbidden", "is not allowed");
  return false;
};
const noTwin = (): Check => {
  throw new Error("annotations need keel/schema");
};
const COMPONENT = /^#\/components\/schemas\/([^/]+)$/;

const isObject = (v: unknown): v is SchemaObject => typeof v === "object" && v !== null && !Array.isArray(v);

export class KernelCompiler implements CodegenHost {
  readonly applicators = true;
  readonly #cache = new Map<object, { fn: Check | null }>();

  constructor(
    readonly settings: { readonly coerce: boolean; readonly useDefaults: boolean },
    readonly assertFormats: boolean,
    readonly components: Readonly<Record<string, JsonSchema>> | undefined,
  ) {}

  compile(schema: unknown): Check {
    if (schema === true) return alwaysValid;
    if (schema === false) return neverValid;
    if (!isObject(schema)) throw new TypeError(`invalid schema: ${JSON.stringify(schema)?.slice(0, 80)}`);
    const cached = this.#cache.get(schema);
    if (cached !== undefined) return cached.fn ?? ((v, s, ev) => (cached.fn as Check)(v, s, ev)); // a cycle: bind late
    const holder: { fn: Check | null } = { fn: null };
    this.#cache.set(schema, holder);
    holder.fn = typeof schema["$ref"] === "string" ? this.#ref(schema, schema["$ref"]) : this.#generate(schema);
    return holder.fn;
  }

  formatCheck(name: string): ((s: string) => boolean) | undefined {
    if (!this.assertFormats) return undefined;
    if (ENGINE_FORMATS.includes(name)) throw new SchemaEngineRequired(`format "${name}"`);
    return commonFormats.get(name);
  }

  #generate(schema: SchemaObject): Check {
    if (!isGeneratable(schema, true)) {
      let keyword = "a keyword";
      const key = Object.keys(schema).find((k) => !isGeneratable({ [k]: schema[k] }, true));
      if (key !== undefined) keyword = `keyword "${key}"`;
      throw new SchemaEngineRequired(keyword);
    }
    const fn = generateCheck(schema, "", this, noTwin);
    if (fn === null) throw new SchemaEngineRequired("validation without code generation (--disallow-code-generation-from-strings)");
    return fn;
  }

  /** `t.ref`: the linked target, else a `t.named` component; any other `$ref` is keel/schema's. */
  #ref(schema: SchemaObject, ref: string): Check {
    const name = COMPONENT.exec(ref)?.[1];
    const target = refTarget(schema) ?? (name === undefined ? undefined : this.components?.[decodeURIComponent(name)]);
    if (target === undefined) throw new SchemaEngineRequired(`$ref ${JSON.stringify(ref)}`);
    const check = this.compile(target);
    const { $ref: _, ...siblings } = schema;
    const rest = Object.keys(siblings).length === 0 ? null : this.compile(siblings);
    const guarded: Check = (v, s) => {
      if (s.refDepth >= s.maxRefDepth) {
        s.report("depth", "is nested too deeply");
        return false;
      }
      s.refDepth++;
      const ok = check(v, s, null);
      s.refDepth--; // an exception aborts the whole run, and the next one resets the count
      return ok;
    };
    if (rest === null) return guarded;
    return (v, s, ev) => {
      const ok = rest(v, s, ev);
      if (!ok && s.stop) return false;
      return guarded(v, s, ev) && ok;
    };
  }
}
