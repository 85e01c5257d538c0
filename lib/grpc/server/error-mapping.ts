// What a handler's throw means on the wire. GrpcError keeps its code; keel's ApiError maps by its
// HTTP status (the inverse of the table in grpc's http-grpc-status-mapping.md, widened to
// keel's statuses); anything else is INTERNAL. Server errors get an error_id (sent in the
// `error-id` trailer and logged with the detail) and, in production, the masked message, as
// keel's HTTP 5xx answers do.
import { ApiError, type ErrorMapper } from "../../index.js";
import { MASKED_MESSAGE, newErrorId, toApiError } from "../../plugin.js";
import { GrpcError } from "./grpc-error.js";
import type { OutgoingMetadata } from "./metadata.js";
import { GrpcStatus, type GrpcStatusCode } from "./status.js";

const BY_HTTP_STATUS: ReadonlyMap<number, GrpcStatusCode> = new Map<number, GrpcStatusCode>([
  [400, GrpcStatus.INVALID_ARGUMENT],
  [401, GrpcStatus.UNAUTHENTICATED],
  [403, GrpcStatus.PERMISSION_DENIED],
  [404, GrpcStatus.NOT_FOUND],
  [408, GrpcStatus.DEADLINE_EXCEEDED],
  [409, GrpcStatus.ALREADY_EXISTS],
  [412, GrpcStatus.FAILED_PRECONDITION],
  [413, GrpcStatus.RESOURCE_EXHAUSTED],
  [422, GrpcStatus.INVALID_ARGUMENT],
  [429, GrpcStatus.RESOURCE_EXHAUSTED],
  [499, GrpcStatus.CANCELLED],
  [501, GrpcStatus.UNIMPLEMENTED],
  [503, GrpcStatus.UNAVAILABLE],
  [504, GrpcStatus.DEADLINE_EXCEEDED],
]);

/** The gRPC code for an HTTP status: the table above; other 5xx → INTERNAL, other 4xx → UNKNOWN. */
export function grpcCodeForHttpStatus(status: number): GrpcStatusCode {
  const mapped = BY_HTTP_STATUS.get(status);
  if (mapped !== undefined) return mapped;
  return status >= 500 ? GrpcStatus.INTERNAL : GrpcStatus.UNKNOWN;
}

export interface MappedError {
  readonly code: GrpcStatusCode;
  readonly message: string;
  readonly metadata: OutgoingMetadata | undefined;
  /** Set for server errors: sent as the `error-id` trailer and logged. */
  readonly errorId: string | undefined;
  /** What the log line carries for a server error (never sent). */
  readonly detail: string | undefined;
  readonly cause: unknown;
}

export function mapHandlerError(err: unknown, production: boolean, mappers: readonly ErrorMapper[] = []): MappedError {
  if (err instanceof GrpcError) {
    const serverError = err.code === GrpcStatus.INTERNAL || err.code === GrpcStatus.UNKNOWN || err.code === GrpcStatus.DATA_LOSS;
    return {
      code: err.code,
      message: serverError && production ? MASKED_MESSAGE : err.message,
      metadata: err.metadata,
      errorId: serverError ? newErrorId() : undefined,
      detail: serverError ? err.message : undefined,
      cause: err,
    };
  }
  const api: ApiError = toApiError(err, mappers);
  const code = grpcCodeForHttpStatus(api.status);
  const serverError = api.status >= 500;
  return {
    code,
    message: serverError && production ? MASKED_MESSAGE : api.message,
    metadata: undefined,
    errorId: serverError ? newErrorId() : undefined,
    detail: serverError ? (api.detail ?? api.message) : undefined,
    cause: api.cause ?? err,
  };
}
