// Extractors are values that pull one typed argument out of a request before the handler runs.
// Each carries what it contributes to the OpenAPI document and whether it consumes the body.
import type { Context } from "./context.js";
import { isPromise } from "../util/is-promise.js";
import { ApiError } from "./errors.js";
import type { AnySchema } from "../schema/index.js";

export type ParamLocation = "path" | "query" | "header" | "cookie";

export interface OpenApiParameterDoc {
  in: ParamLocation;
  name: string;
  required: boolean;
  /** JSON Schema, or another library's Standard Schema (documented through Standard JSON Schema). */
  schema?: AnySchema;
  description?: string;
}

export interface OpenApiBodyDoc {
  /** Media types accepted, first is the primary one. */
  contentTypes: readonly string[];
  /** JSON Schema, or another library's Standard Schema (documented through Standard JSON Schema). */
  schema?: AnySchema;
  required: boolean;
}

/** What an extractor adds to its operation in the OpenAPI document. */
export interface ExtractorDoc {
  parameters?: readonly OpenApiParameterDoc[];
  /** A schema whose properties are query parameters (from `query(schema)`). */
  querySchema?: AnySchema;
  body?: OpenApiBodyDoc;
  /** Security requirement names (filled by auth extractors). */
  security?: readonly string[];
  /** The security schemes those names refer to (registered in components.securitySchemes). */
  securitySchemes?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Statuses this extractor can answer with (400, 401, 415, 422...). */
  errorStatuses?: readonly number[];
  /** Why its schema was refused (neither JSON Schema nor Standard Schema): App.route throws, naming the route. */
  refused?: string;
}

/** Raised when a value is absent; `optional(e)` turns exactly this into `undefined`. */
export class MissingValueError extends ApiError {
  constructor(message: string) {
    super(400, "bad_request", message);
  }
}

type Extract<T> = (ctx: Context) => T | Promise<T>;

/**
 * What part of the request an extractor reads, as a type only (for typed clients: `keel/client`).
 * `params`/`headers`: the names it reads and their types; `query`: the query object; `body`: the
 * body's encoding and type. Custom extractors read nothing a client must send (`{}`).
 */
export interface RequestInput {
  params?: Record<string, unknown>;
  query?: unknown;
  headers?: Record<string, unknown>;
  body?: { readonly type: "json" | "form" | "text" | "bytes"; readonly value: unknown };
  /** Set by optional(): everything above may be left out. */
  optional?: true;
}


export class Extractor<T, B extends boolean = false, I extends RequestInput = {}> {
  /** Phantom: the type the handler receives. */
  declare readonly __type: T;
  /** Phantom: what a client must send for this extractor (see RequestInput). */
  declare readonly __in?: I;
  readonly extract: Extract<T>;
  readonly consumesBody: B;
  readonly doc: ExtractorDoc;
  /** Short name used in registration error messages. */
  readonly label: string;

  constructor(label: string, extract: Extract<T>, consumesBody: B, doc: ExtractorDoc = {}) {
    this.label = label;
    this.extract = extract;
    this.consumesBody = consumesBody;
    this.doc = doc;
  }

  /** A new extractor whose value is `fn(value)`; a thrown ApiError rejects the request. */
  map<U>(fn: (value: T, ctx: Context) => U | Promise<U>): Extractor<Awaited<U>, B, I> {
    const inner = this.extract;
    return new Extractor<Awaited<U>, B, I>(
      this.label,
      (ctx) => {
        const v = inner(ctx);
        return (isPromise(v) ? v.then((x) => fn(x, ctx)) : fn(v, ctx)) as Awaited<U> | Promise<Awaited<U>>;
      },
      this.consumesBody,
      this.doc,
    );
  }

  /** Reject the request (400 by default, or 422 with a field item) when `pred` is false. */
  refine(pred: (value: T) => boolean, message: string, options: { status?: 400 | 422; field?: string; code?: string } = {}): Extractor<T, B, I> {
    const inner = this.extract;
    const fail = (): never => {
      if (options.status === 422) {
        throw ApiError.validation([{ field: options.field ?? this.label, code: options.code ?? "custom", message }]);
      }
      throw ApiError.badRequest(message);
    };
    const check = (v: T): T => (pred(v) ? v : fail());
    return new Extractor<T, B, I>(
      this.label,
      (ctx) => {
        const v = inner(ctx);
        return isPromise(v) ? v.then(check) : check(v);
      },
      this.consumesBody,
      this.doc,
    );
  }
}

export type AnyExtractor = Extractor<any, boolean, any>;
export type ExtractedType<E> = E extends Extractor<infer T, boolean, any> ? T : never;

/** Build a custom extractor: `extractor("tenant", (ctx) => ctx.header("x-tenant") ?? raise(...))`. */
export function extractor<T>(label: string, extract: Extract<T>, doc?: ExtractorDoc): Extractor<T, false> {
  return new Extractor<T, false>(label, extract, false, doc);
}

/** Build a custom body-consuming extractor (must be a handler's last argument). */
export function bodyExtractor<T>(label: string, extract: Extract<T>, doc?: ExtractorDoc): Extractor<T, true> {
  return new Extractor<T, true>(label, extract, true, doc);
}

/** `undefined` instead of a 400 when the value is absent; present-but-invalid still fails. */
export function optional<T, B extends boolean, I extends RequestInput>(e: Extractor<T, B, I>): Extractor<T | undefined, B, I & { optional: true }> {
  const inner = e.extract;
  const onError = (err: unknown): undefined => {
    if (err instanceof MissingValueError) return undefined;
    throw err;
  };
  const doc: ExtractorDoc = {
    ...e.doc,
    ...(e.doc.parameters ? { parameters: e.doc.parameters.map((p) => ({ ...p, required: p.in === "path" })) } : {}),
    ...(e.doc.body ? { body: { ...e.doc.body, required: false } } : {}),
  };
  return new Extractor<T | undefined, B, I & { optional: true }>(
    e.label,
    (ctx) => {
      try {
        const v = inner(ctx);
        return isPromise(v) ? v.then(undefined, onError) : v;
      } catch (err) {
        return onError(err);
      }
    },
    e.consumesBody,
    doc,
  );
}

