// The errors a multipart body can raise, all in the uniform shape. Errors raised while request
// bytes are still unread carry `connection: close`: the rest of the upload is discarded by the
// lingering close instead of being read as the next request on a kept-alive connection.
import { ApiError } from "../../index.js";

const CLOSE = { connection: "close" } as const;

/** 400: the body is not well-formed multipart/form-data. */
export function malformed(message: string, midBody = true): ApiError {
  return ApiError.badRequest(`Malformed multipart body: ${message}`, midBody ? { headers: { ...CLOSE } } : undefined);
}

/** 413: one of the multipart limits was passed; `limit` names it as configured (`files.maxFileSize`). */
export function limitExceeded(limit: string, value: number, what: string): ApiError {
  return ApiError.payloadTooLarge(`${what} exceeds ${limit} of ${value}`, { headers: { ...CLOSE } });
}

/** 415 for a file whose declared type is not one of `files.types`. */
export function fileTypeRefused(field: string, type: string, allowed: readonly string[]): ApiError {
  return ApiError.unsupportedMediaType(`File in field ${JSON.stringify(field)} has type ${type}; allowed: ${allowed.join(", ")}`, {
    headers: { ...CLOSE },
  });
}
