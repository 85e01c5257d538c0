// The gRPC status codes (https://github.com/grpc/grpc/blob/master/doc/statuscodes.md).
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

const NAMES: readonly string[] = Object.keys(GrpcStatus);

/** `NOT_FOUND` for 5; `CODE_<n>` for numbers outside the table. */
export function grpcStatusName(code: number): string {
  return NAMES[code] ?? `CODE_${code}`;
}
