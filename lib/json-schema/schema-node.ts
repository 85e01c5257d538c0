// What a keyword family sees while compiling one schema object: the node, and the compiler it
// calls back into (an interface, so keyword files and the code generator do not import the
// compiler they are part of).
import { schemaMessage, type Check, type CodegenHost, type JsonSchema } from "../plugin.js";
import type { ResolvedSchema, SchemaRegistry } from "./registry.js";

/** The compiler as keyword families and the code generator use it (CompileContext implements it). */
export interface NodeCompiler extends CodegenHost {
  /** Set when any `$dynamicRef` is compiled: only then do resources track the dynamic scope. */
  dynamic: boolean;
  readonly registry: SchemaRegistry;
  readonly settings: CompilerSettings;
  compile(schema: unknown, base: string, validation: boolean): Check;
  formatCheck(name: string): ((s: string) => boolean) | undefined;
  resolveRef(holder: SchemaObject, ref: string, base: string): ResolvedSchema;
}

export type SchemaObject = { readonly [k: string]: unknown };

export interface CompilerSettings {
  coerce: boolean;
  useDefaults: boolean;
  codegen: boolean;
  assertFormats: boolean;
  components: Readonly<Record<string, JsonSchema>> | undefined;
}

export function isSchemaObject(v: unknown): v is SchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What a keyword family sees while compiling one schema object. */
export class SchemaNode {
  /** Checks run in order after the type check. */
  readonly checks: Check[] = [];
  /** `unevaluatedProperties`/`unevaluatedItems`: run last, with what the others evaluated. */
  readonly unevaluated: Check[] = [];
  typeCheck: Check | null = null;

  constructor(
    readonly schema: SchemaObject,
    readonly base: string,
    readonly cc: NodeCompiler,
    /** false when the dialect's meta-schema leaves out the validation vocabulary. */
    readonly validation: boolean,
  ) {
  }

  /** The message for a failed rule: `x-messages[code]`, else `x-message`, else the default. */
  message(code: string, fallback: string): string {
    return schemaMessage(this.schema, code, fallback);
  }

  /** Compiles a subschema found under this node. */
  sub(schema: unknown): Check {
    return this.cc.compile(schema, this.base, this.validation);
  }

  /** Resolves and compiles a `$ref` value. */
  ref(value: string): { check: Check; base: string; schema: JsonSchema } {
    const target = this.cc.resolveRef(this.schema, value, this.base);
    return { check: this.cc.compile(target.schema, target.base, this.validation), base: target.base, schema: target.schema };
  }
}
