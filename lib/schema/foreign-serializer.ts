// A declared response with another library's schema (Standard Schema): its "serializer" validates
// the handler's value with `~standard.validate` and writes the validated value (so a schema that
// strips unknown properties strips them). Reached through the contract compilers' slot
// (use-schemas.ts), so an app without schemas carries none of it.
import { issueFields } from "./foreign-schema.js";
import { isPromise } from "../util/is-promise.js";
import { SerializationMismatch, type Serializer } from "./serializer-mismatch.js";
import type { StandardSchemaV1 } from "./standard-schema.js";
import type { CompiledSchema } from "./types.js";

function mismatch(at: string, message: string): SerializationMismatch {
  const err = new SerializationMismatch("", "");
  err.message = message;
  if (at !== "") err.segments.push(at);
  return err;
}

export function foreignSerializer(schema: StandardSchemaV1): Serializer {
  const std = schema["~standard"];
  return (value) => {
    const result = std.validate(value);
    if (isPromise(result)) {
      void result.then(undefined, () => undefined);
      throw mismatch("", "validates asynchronously: a declared response needs a synchronous validate");
    }
    if (result.issues === undefined) return JSON.stringify(result.value) ?? "null";
    const first = issueFields(result.issues)[0];
    throw mismatch(first?.field ?? "", first?.message ?? "is invalid");
  };
}

/** `responseValidation: "full"` for a foreign schema: its serializer already validated (the contract calls only `validate`). */
export const foreignValidator = { validate: () => null } as unknown as CompiledSchema;
