// The one error shape of keel: {"error":{"type","message","fields"?},"error_id":"err_<32 hex>"}.
// Every error anywhere in the request path (router, extractors, layers, handlers) ends up here.
import { jsonString } from "../util/json-string.js";

export type ErrorType =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "not_acceptable"
  | "conflict"
  | "payload_too_large"
  | "request_header_fields_too_large"
  | "expectation_failed"
  | "unsupported_media_type"
  | "validation_error"
  | "rate_limit_exceeded"
  | "timeout"
  | "service_unavailable"
  | "internal_error";

/** One failed rule of a validation error (SPEC "Validation field item"). */
export interface ValidationField {
  field: string;
  code: string;
  message: string;
}

export interface ApiErrorOptions {
  /** Private text written to the log with the error_id; never sent to the client. */
  detail?: string;
  cause?: unknown;
  fields?: ValidationField[];
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After, ...). */
  headers?: Record<string, string>;
}

/** An error that knows its HTTP status and uniform-body type. Throw it from handlers and layers. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType | (string & {});
  readonly fields: ValidationField[] | undefined;
  readonly detail: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, type: ErrorType | (string & {}), message: string, options: ApiErrorOptions = {}) {
    // A client error is control flow, not a bug: skip capturing a stack trace, which cost
    // several microseconds per 404/422 in profiles. Server errors keep theirs for the log.
    const stackLimit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackLimit;
    this.name = "ApiError";
    this.status = status;
    this.type = type;
    this.fields = options.fields;
    this.detail = options.detail;
    this.headers = options.headers;
  }

  static badRequest(message = "Bad request", options?: ApiErrorOptions): ApiError {
    return new ApiError(400, "bad_request", message, options);
  }
  static unauthorized(message = "Unauthorized", options?: ApiErrorOptions): ApiError {
    return new ApiError(401, "unauthorized", message, options);
  }
  static forbidden(message = "Forbidden", options?: ApiErrorOptions): ApiError {
    return new ApiError(403, "forbidden", message, options);
  }
  static notFound(message = "Not found", options?: ApiErrorOptions): ApiError {
    return new ApiError(404, "not_found", message, options);
  }
  static conflict(message = "Conflict", options?: ApiErrorOptions): ApiError {
    return new ApiError(409, "conflict", message, options);
  }
  static payloadTooLarge(message = "Payload too large", options?: ApiErrorOptions): ApiError {
    return new ApiError(413, "payload_too_large", message, options);
  }
  static unsupportedMediaType(message = "Unsupported media type", options?: ApiErrorOptions): ApiError {
    return new ApiError(415, "unsupported_media_type", message, options);
  }
  static validation(fields: ValidationField[], message = "Request validation failed"): ApiError {
    return new ApiError(422, "validation_error", message, { fields });
  }
  static tooManyRequests(message = "Too many requests", options?: ApiErrorOptions): ApiError {
    return new ApiError(429, "rate_limit_exceeded", message, options);
  }
  static serviceUnavailable(message = "Service unavailable", options?: ApiErrorOptions): ApiError {
    return new ApiError(503, "service_unavailable", message, options);
  }
  /** 500. `detail` (and `cause`) go to the log with the error_id, never to the client. */
  static internal(message = "Internal server error", options?: ApiErrorOptions): ApiError {
    return new ApiError(500, "internal_error", message, options);
  }
}

/** Throw an error from an expression position: `users.get(id) ?? raise(ApiError.notFound())`. */
export function raise(error: unknown): never {
  throw error;
}

/** `err_` + 32 lowercase hex characters (a random UUID v4 without dashes). */
// 128 random bits per id, drawn 256 ids at a time into one flat text of ids: an id is then one
// slice (the 404/405/422 paths make one per answer; building it from 16 hex pairs cost more).
const idBytes = new Uint8Array(16 * 256);
let idText = "";
let idAt = 0;

export function newErrorId(): string {
  if (idAt === idText.length) {
    // The Web Crypto global: node:crypto is loaded only when the first error needs an id (~2 ms
    // of cold start saved for apps that answer without one).
    globalThis.crypto.getRandomValues(idBytes);
    const hex = Buffer.from(idBytes.buffer).toString("hex");
    let text = "";
    for (let i = 0; i < hex.length; i += 32) text += "err_" + hex.slice(i, i + 32);
    idText = text;
    idAt = 0;
  }
  const id = idText.slice(idAt, idAt + 36);
  idAt += 36;
  return id;
}

export const MASKED_MESSAGE = "An internal error occurred";

/**
 * The method by which a thrown value gives its own HTTP meaning: an error class of a feature
 * implements `[asApiError]()` (a closed job queue: 503; a lost Redis connection: 503 with
 * Retry-After), so it maps the same in every app, with no registry. `Symbol.for`, so that errors
 * of another copy of keel (a vendored file beside the package) are recognised too.
 */
export const asApiError: unique symbol = Symbol.for("keel.asApiError") as never;

/** An error that knows its HTTP meaning (see asApiError). */
export interface KnowsApiError {
  [asApiError](): ApiError;
}

/** Maps errors of a library the app uses (a database driver...) to ApiErrors; undefined: not mine. */
export type ErrorMapper = (err: unknown) => ApiError | undefined;

const NO_MAPPERS: readonly ErrorMapper[] = [];

/**
 * What an arbitrary thrown value means as an ApiError: itself, its own `[asApiError]()`, the first
 * answer of the app's error mappers (`app.mapErrors(...)`), and anything else is a 500.
 */
export function toApiError(err: unknown, mappers: readonly ErrorMapper[] = NO_MAPPERS): ApiError {
  if (err instanceof ApiError) return err;
  if (typeof err === "object" && err !== null && typeof (err as Partial<KnowsApiError>)[asApiError] === "function") {
    const own = (err as KnowsApiError)[asApiError]();
    if (own instanceof ApiError) return own;
  }
  for (let i = 0; i < mappers.length; i++) {
    const mapped = mappers[i]!(err);
    if (mapped !== undefined) return mapped;
  }
  return new ApiError(500, "internal_error", "Internal server error", {
    detail: err instanceof Error ? err.message : String(err),
    cause: err,
  });
}

/** The uniform body as a JSON string. Production masks every 5xx message; fields stay. */
export function errorBodyJson(err: ApiError, errorId: string, production: boolean): string {
  const message = production && err.status >= 500 ? MASKED_MESSAGE : err.message;
  const { type, fields } = err;
  // Written by hand (JSON.stringify's bytes for about half its instructions on a 422); anything
  // off the usual shape (a field item with other keys, a non-string) takes JSON.stringify.
  const list = fields === undefined ? "" : fieldsJson(fields);
  if (typeof type === "string" && typeof message === "string" && typeof errorId === "string" && list !== undefined) {
    return '{"error":{"type":' + jsonString(type) + ',"message":' + jsonString(message) + list + '},"error_id":' + jsonString(errorId) + "}";
  }
  return JSON.stringify({ error: fields === undefined ? { type, message } : { type, message, fields }, error_id: errorId });
}

const FIELD_KEYS = ["field", "code", "message"];

/**
 * `,"fields":[...]` when every item is exactly `{field, code, message}` of strings (for-in also
 * lists inherited keys, which JSON.stringify skips: such an item only loses the fast path).
 */
function fieldsJson(fields: readonly ValidationField[]): string | undefined {
  if (!Array.isArray(fields) || (fields as { toJSON?: unknown }).toJSON !== undefined) return undefined;
  let out = ',"fields":[';
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as ValidationField;
    if (typeof f !== "object" || f === null || (f as { toJSON?: unknown }).toJSON !== undefined) return undefined;
    let k = 0;
    for (const key in f) if (key !== FIELD_KEYS[k++]) return undefined;
    if (k !== 3 || typeof f.field !== "string" || typeof f.code !== "string" || typeof f.message !== "string") return undefined;
    out += (i === 0 ? '{"field":' : ',{"field":') + jsonString(f.field) + ',"code":' + jsonString(f.code) + ',"message":' + jsonString(f.message) + "}";
  }
  return out + "]";
}
