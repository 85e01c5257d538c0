// A route's declared responses, compiled once when the app compiles: each JSON response schema
// becomes a serializer (lib/schema/serializer.ts), and the handler's reply is written with the one
// for its status. Properties the schema does not list are never sent; a value that does not fit
// is a 500 whose log line names the route, the status and the mismatch. Routes without response
// schemas (and statuses without one) keep JSON.stringify.
import type { CompiledSchema, JsonSchema } from "../schema/types.js";
import { refTarget, schemaName } from "../schema/schema-marks.js";
import { contractCompilers } from "../schema/contract-compilers.js";
import { SerializationMismatch, type Serializer } from "../schema/serializer-mismatch.js";
import { ApiError } from "./errors.js";
import { JSON_TYPE, Reply } from "./reply.js";
import type { ResponseDoc, ResponseValue } from "./route.js";
import type { ResponseValidation } from "./runtime.js";
import { isJsonMediaType } from "../util/json-media-type.js";


const RESPONSE_DOC_KEYS = new Set(["description", "schema", "contentType"]);
/** Statuses whose responses never carry content. */
const NO_CONTENT = new Set([204, 205, 304]);

/** `{ description?, schema?, contentType? }` rather than a schema (which has keywords like `type`). */
export function isResponseDoc(v: ResponseValue): v is ResponseDoc {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  if (schemaName(v) !== undefined || refTarget(v) !== undefined) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => RESPONSE_DOC_KEYS.has(k));
}

/** The JSON schema a declared response gives its body, if any (a plain string is a description). */
export function responseSchema(status: number, value: ResponseValue): ResponseDoc["schema"] {
  if (typeof value === "string" || NO_CONTENT.has(status)) return undefined;
  if (!isResponseDoc(value)) return value;
  if (value.contentType !== undefined && !isJsonMediaType(value.contentType)) return undefined;
  return value.schema;
}

interface StatusWriter {
  readonly status: number;
  readonly serialize: Serializer;
  readonly validator: CompiledSchema | null;
}

export class ResponseContract {
  readonly #where: string;
  /** The writer for 200 (a handler's plain return value), looked up without a search. */
  readonly #ok: StatusWriter | null;
  readonly #others: readonly StatusWriter[];

  constructor(where: string, responses: Readonly<Record<number, ResponseValue>>, validation: ResponseValidation) {
    this.#where = where;
    const writers: StatusWriter[] = [];
    const compilers = contractCompilers();
    for (const key of Object.keys(responses)) {
      const status = Number(key);
      const value = responses[status];
      if (!Number.isInteger(status) || value === undefined) continue;
      const schema = responseSchema(status, value);
      if (schema === undefined) continue;
      if (compilers === null) {
        throw new TypeError(`${where}: response ${status} declares a schema but no schema compiler is loaded: build it with t (keel), compile one with a schema extractor, or import "keel/schema"`);
      }
      try {
        writers.push({
          status,
          serialize: compilers.serializer(schema as JsonSchema),
          validator: validation === "full" ? compilers.validator(schema as JsonSchema, { formats: "assert" }) : null,
        });
      } catch (err) {
        throw new TypeError(`${where}: response ${status} schema cannot be compiled: ${(err as Error).message}`);
      }
    }
    this.#ok = writers.find((w) => w.status === 200) ?? null;
    this.#others = writers.filter((w) => w.status !== 200);
  }

  /** A contract for `responses`, or null when no status declares a JSON schema (nothing to do). */
  static for(where: string, responses: Readonly<Record<number, ResponseValue>> | undefined, validation: ResponseValidation): ResponseContract | null {
    if (responses === undefined) return null;
    const contract = new ResponseContract(where, responses, validation);
    return contract.#ok === null && contract.#others.length === 0 ? null : contract;
  }

  /** A handler's plain return value: 200 with the body its schema writes. */
  valueReply(value: unknown): Reply {
    const r = new Reply(200, null);
    r.headers["content-type"] = JSON_TYPE;
    r.rawValue = value;
    const w = this.#ok;
    if (w === null) r.pendingJson = true;
    else r.setSerialized(this.#write(w, value));
    return r;
  }

  /** A handler's JSON Reply (`created(user)`): written by the schema of its status, if one is declared. */
  writeReply(r: Reply): void {
    const w = r.status === 200 ? this.#ok : this.#find(r.status);
    if (w === null) void r.body; // JSON.stringify now, inside the route's error guard
    else r.setSerialized(this.#write(w, r.rawValue));
  }

  #find(status: number): StatusWriter | null {
    for (const w of this.#others) if (w.status === status) return w;
    return null;
  }

  #write(w: StatusWriter, value: unknown): string {
    if (w.validator !== null) {
      const errors = w.validator.validate(value);
      if (errors !== null) {
        const first = errors[0]!;
        throw this.#broken(w.status, `${first.field === "" ? "at the root" : `at ${first.field}`}: ${first.message} (${first.code})`);
      }
    }
    try {
      return w.serialize(value);
    } catch (err) {
      if (err instanceof SerializationMismatch) throw this.#broken(w.status, err.describe());
      throw err;
    }
  }

  /** The 500 for a reply that breaks its contract: the mismatch is in the log, never in the body. */
  #broken(status: number, mismatch: string): ApiError {
    return ApiError.internal("The response did not match its declared schema", {
      detail: `${this.#where}: response ${status} does not match its schema ${mismatch}`,
    });
  }
}
