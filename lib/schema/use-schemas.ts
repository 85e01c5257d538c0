// Fills the response contracts' compiler slot (contract-compilers.ts) with the kernel's
// serializer and compileSchema (which uses keel/schema's engine once that is registered). Called
// by whatever builds or compiles an app's schema: each `t` builder, the public compileSchema (the
// schema extractors, features, keel/schema), keel/schema's entry. One boolean test after the
// first call. Another library's schema (Standard Schema) gets a serializer that validates with it.
import { installContractCompilers } from "./contract-compilers.js";
import { compileSchema as compileValidator } from "./compile.js";
import { compileSerializer } from "./serializer.js";
import { foreignSchema, schemaProblem } from "./foreign-schema.js";
import { foreignSerializer, foreignValidator } from "./foreign-serializer.js";
import type { CompiledSchema, CompileOptions, JsonSchema, Static } from "./types.js";

let done = false;

export function useSchemas(): void {
  if (done) return;
  done = true;
  installContractCompilers({
    serializer: (schema) => {
      const foreign = foreignSchema(schema);
      if (foreign !== null) return foreignSerializer(foreign);
      const problem = schemaProblem(schema);
      if (problem !== undefined) throw new TypeError(`the schema ${problem}`);
      return compileSerializer(schema);
    },
    validator: (schema, options) => {
      return foreignSchema(schema) !== null ? foreignValidator : compileValidator(schema, options);
    },
  });
}

/**
 * Compile `schema` into a validator (once, at registration; validating is then one call per
 * value). Uses keel/schema's full JSON Schema 2020-12 engine when it is loaded, otherwise the
 * kernel's, which compiles everything `t` builds and refuses the rest naming keel/schema.
 */
export function compileSchema<S extends JsonSchema>(schema: S, options: CompileOptions = {}): CompiledSchema<Static<S>> {
  useSchemas();
  return compileValidator(schema, options);
}
