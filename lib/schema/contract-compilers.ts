// The compilers a response contract needs (the serializer, and the validator for
// `responseValidation: "full"`), in a slot that what builds or compiles schemas fills
// (use-schemas.ts: `t`, the schema extractors, keel/schema). App.route reaches the slot, not the
// compilers, so an app that declares no schema carries neither (about 12 KB gzip of the hello
// app, measured with `npm run sizes`). A route that declares a response schema while the slot is
// empty is refused at registration (response-contract.ts), never served without its contract.
import type { Serializer } from "./serializer.js";
import type { CompiledSchema, CompileOptions, JsonSchema } from "./types.js";

export interface ContractCompilers {
  serializer(schema: JsonSchema): Serializer;
  validator(schema: JsonSchema, options: CompileOptions): CompiledSchema;
}

let installed: ContractCompilers | null = null;

export function installContractCompilers(compilers: ContractCompilers): void {
  installed = compilers;
}

export function contractCompilers(): ContractCompilers | null {
  return installed;
}
