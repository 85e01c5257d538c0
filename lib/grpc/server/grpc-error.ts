// The error a handler throws when it wants a specific gRPC status. ApiError works too (mapped by
// its HTTP status, see error-mapping.ts); GrpcError is for codes HTTP has no word for.
import type { OutgoingMetadata } from "./metadata.js";
import { grpcStatusName, type GrpcStatusCode } from "./status.js";

export class GrpcError extends Error {
  readonly code: GrpcStatusCode;
  /** Sent as trailers next to grpc-status (keys lowercase; `-bin` keys take Buffers). */
  readonly metadata: OutgoingMetadata | undefined;

  constructor(code: GrpcStatusCode, message: string, metadata?: OutgoingMetadata) {
    if (!Number.isInteger(code) || code < 1 || code > 16) throw new RangeError(`GrpcError: code must be 1..16, got ${String(code)}`);
    super(message);
    this.name = "GrpcError";
    this.code = code;
    this.metadata = metadata;
  }

  override toString(): string {
    return `GrpcError ${grpcStatusName(this.code)}: ${this.message}`;
  }
}

