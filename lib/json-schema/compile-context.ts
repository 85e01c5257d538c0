// Closure compiler core: turns each schema object into one `Check` function, once, with a cache
// keyed by the schema object (so `$ref` cycles compile to a loop, never to infinite recursion).
// Keyword families live in keywords-*.ts and add their checks to a node through `SchemaNode`
// (schema-node.ts).
import { generateCheck, isGeneratable, mergeEvaluated, newEvaluated, refTarget, type Check, type Evaluated, type JsonSchema, type ValidationState } from "../plugin.js";
import { schemaFormats } from "./formats.js";
import { addArrayKeywords } from "./keywords-array.js";
import { addApplicatorKeywords, addUnevaluatedKeywords } from "./keywords-applicator.js";
import { addObjectKeywords } from "./keywords-object.js";
import { addValueKeywords } from "./keywords-value.js";
import { isSchemaObject, SchemaNode, type CompilerSettings, type NodeCompiler, type SchemaObject } from "./schema-node.js";
import { anonymousBase, splitRef, type ResolvedSchema, type SchemaRegistry } from "./registry.js";

const VALIDATION_VOCAB = "https://json-schema.org/draft/2020-12/vocab/validation";
const DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
/** The 2020-12 vocabularies: a meta-schema may require these and nothing else. */
const KNOWN_VOCABULARIES = new Set(
  ["core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "format-assertion", "content"].map(
    (v) => `https://json-schema.org/draft/2020-12/vocab/${v}`,
  ),
);
/** How many meta-schemas deep a dialect is followed (a meta-schema's own $schema). */
const MAX_DIALECT_DEPTH = 8;

/**
 * A `$schema` the validator cannot honour: another draft (2019-09, draft-07...), an unknown URI,
 * or a meta-schema requiring a vocabulary we do not implement. Refused at compile time, never
 * validated with the wrong rules: 2019-09 keywords such as `$recursiveRef` or array `items`
 * would otherwise be ignored or misread and accept what the schema's author meant to refuse.
 */
export class UnsupportedDialectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedDialectError";
  }
}

const alwaysValid: Check = () => true;
const neverValid: Check = (_v, s) => {
  s.report("forbidden", "is not allowed");
  return false;
};

export class CompileContext implements NodeCompiler {
  /** Set when any `$dynamicRef` is compiled: only then do resources track the dynamic scope. */
  dynamic = false;
  readonly #cache = new Map<object, { fn: Check | null }>();
  readonly #noValidationCache = new Map<object, { fn: Check | null }>();
  readonly #externals = new Map<JsonSchema, string>();
  readonly #dialects = new Map<string, boolean>();

  constructor(
    readonly registry: SchemaRegistry,
    readonly settings: CompilerSettings,
  ) {}

  compile(schema: unknown, base: string, validation: boolean): Check {
    if (schema === true) return alwaysValid;
    if (schema === false) return neverValid;
    if (!isSchemaObject(schema)) throw new TypeError(`invalid schema: ${JSON.stringify(schema)?.slice(0, 80)}`);
    const cache = validation ? this.#cache : this.#noValidationCache;
    const cached = cache.get(schema);
    if (cached !== undefined) {
      if (cached.fn !== null) return cached.fn;
      return (v, s, ev) => (cached.fn as Check)(v, s, ev); // a cycle: bind late
    }
    const holder: { fn: Check | null } = { fn: null };
    cache.set(schema, holder);
    const fn = (validation && this.settings.codegen && this.#generated(schema, base)) || this.#compileObject(schema, base, validation);
    holder.fn = fn;
    return fn;
  }

  /** Generated code for local-keyword schemas (closure twin only if `unevaluated*` needs annotations). */
  #generated(schema: SchemaObject, base: string): Check | null {
    if (!isGeneratable(schema)) return null;
    return generateCheck(schema, base, this, () => this.#compileObject(schema, base, true));
  }

  #compileObject(schema: SchemaObject, outerBase: string, outerValidation: boolean): Check {
    const id = schema["$id"];
    // Indexed subschemas know their base already (a $ref target arrives with its resource's base).
    const base = this.registry.baseOf(schema) ?? (typeof id === "string" ? splitRef(id, outerBase)[0] : outerBase);
    const validation = this.#validationVocabulary(schema, outerValidation);
    const node = new SchemaNode(schema, base, this, validation);
    if (validation) addValueKeywords(node);
    addObjectKeywords(node);
    addArrayKeywords(node);
    addApplicatorKeywords(node);
    addUnevaluatedKeywords(node);
    const fn = assemble(node);
    if (typeof id !== "string") return fn;
    // A schema resource: record it in the dynamic scope while evaluating inside it.
    return (v, s, ev) => {
      if (!this.dynamic) return fn(v, s, ev);
      s.scope.push(base);
      try {
        return fn(v, s, ev);
      } finally {
        s.scope.pop();
      }
    };
  }

  #validationVocabulary(schema: SchemaObject, inherited: boolean): boolean {
    const dialect = schema["$schema"];
    if (typeof dialect !== "string") return inherited;
    let known = this.#dialects.get(dialect);
    if (known === undefined) {
      known = this.#dialectHasValidation(dialect, dialect, 0);
      this.#dialects.set(dialect, known);
    }
    return known;
  }

  /** Whether a dialect turns the validation vocabulary on; throws for a dialect we cannot honour. */
  #dialectHasValidation(uri: string, asked: string, depth: number): boolean {
    const plain = uri.endsWith("#") ? uri.slice(0, -1) : uri;
    if (plain === DIALECT_2020_12) return true;
    const meta = depth < MAX_DIALECT_DEPTH ? this.registry.resolve(plain, plain) : undefined;
    if (meta === undefined || !isSchemaObject(meta.schema)) {
      throw new UnsupportedDialectError(
        `unsupported $schema ${JSON.stringify(asked)}: keel validates JSON Schema 2020-12 ` +
          `(${DIALECT_2020_12}) and 2020-12 dialects whose meta-schema is registered`,
      );
    }
    const vocabulary = meta.schema["$vocabulary"];
    if (isSchemaObject(vocabulary)) {
      for (const [name, required] of Object.entries(vocabulary)) {
        if (required === true && !KNOWN_VOCABULARIES.has(name)) {
          throw new UnsupportedDialectError(`$schema ${JSON.stringify(asked)} requires the vocabulary ${name}, which keel does not implement`);
        }
      }
      return Object.hasOwn(vocabulary, VALIDATION_VOCAB);
    }
    // No $vocabulary: the meta-schema is written in some dialect itself; that dialect decides.
    const parent = meta.schema["$schema"];
    if (typeof parent !== "string" || parent === uri || parent === plain) {
      throw new UnsupportedDialectError(`unsupported $schema ${JSON.stringify(asked)}: its meta-schema is not a 2020-12 dialect`);
    }
    return this.#dialectHasValidation(parent, asked, depth + 1);
  }

  formatCheck(name: string): ((s: string) => boolean) | undefined {
    return this.settings.assertFormats ? schemaFormats.get(name) : undefined;
  }

  /** Resolves a `$ref`: registry first, then `t.ref` targets and `components` for `#/components/schemas/<name>`. */
  resolveRef(holder: SchemaObject, ref: string, base: string): ResolvedSchema {
    const linked = refTarget(holder);
    if (linked !== undefined) return { schema: linked, base: this.#externalBase(linked) };
    const found = this.registry.resolve(ref, base);
    if (found !== undefined) return found;
    const component = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
    const named = component?.[1] === undefined ? undefined : this.settings.components?.[decodeURIComponent(component[1])];
    if (named !== undefined) return { schema: named, base: this.#externalBase(named) };
    throw new Error(`cannot resolve $ref ${JSON.stringify(ref)} from ${base}`);
  }

  /** A schema reached outside the document (t.ref target, component): index it under its own base once. */
  #externalBase(schema: JsonSchema): string {
    let base = this.#externals.get(schema);
    if (base === undefined) {
      base = isSchemaObject(schema) && typeof schema["$id"] === "string" ? splitRef(schema["$id"], anonymousBase())[0] : anonymousBase();
      this.registry.add(schema, base);
      this.#externals.set(schema, base);
    }
    return base;
  }
}

/** Builds the node function: type first (a wrong type makes the other rules moot), then the rest. */
function assemble(node: SchemaNode): Check {
  const checks = node.checks;
  const unevaluated = node.unevaluated;
  const typeCheck = node.typeCheck;
  let body: Check;
  if (unevaluated.length > 0) {
    body = (v, s, ev) => {
      const local: Evaluated = newEvaluated();
      let ok = true;
      for (let i = 0; i < checks.length; i++) {
        if (!(checks[i] as Check)(v, s, local)) {
          ok = false;
          if (s.stop) return false;
        }
      }
      if (!ok) return false;
      for (let i = 0; i < unevaluated.length; i++) {
        if (!(unevaluated[i] as Check)(v, s, local)) {
          ok = false;
          if (s.stop) return false;
        }
      }
      if (ok && ev !== null) mergeEvaluated(ev, local);
      return ok;
    };
  } else if (checks.length === 0) {
    body = alwaysValid;
  } else if (checks.length === 1) {
    body = checks[0] as Check;
  } else {
    body = (v, s, ev) => {
      let ok = true;
      for (let i = 0; i < checks.length; i++) {
        if (!(checks[i] as Check)(v, s, ev)) {
          ok = false;
          if (s.stop) return false;
        }
      }
      return ok;
    };
  }
  if (typeCheck === null) return body;
  if (body === alwaysValid) return typeCheck;
  return (v, s: ValidationState, ev) => typeCheck(v, s, ev) && body(v, s, ev);
}
