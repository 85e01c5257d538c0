// The gRPC server: services, handlers, calls, statuses.
export { GrpcServer, grpcServer, type GrpcServiceRegistration } from "./server.js";
export { GrpcCall } from "./call.js";
export { GrpcError } from "./grpc-error.js";
export { GrpcStatus, grpcStatusName, type GrpcStatusCode } from "./status.js";
export { grpcCodeForHttpStatus } from "./error-mapping.js";
export { parseGrpcTimeout } from "./timeout.js";
export {
  DEFAULT_GRPC_HANDSHAKE_TIMEOUT_MS, DEFAULT_GRPC_MAX_CONCURRENT_STREAMS, DEFAULT_GRPC_MAX_METADATA_SIZE, DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH, DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type GrpcListenOptions, type GrpcListeningServer, type GrpcServerOptions,
} from "./options.js";
export type { IncomingMetadata, OutgoingMetadata } from "./metadata.js";
export type {
  BidiStreamingHandler, ClientStreamingHandler, MethodHandler, ResponseMessage, ServerStreamingHandler, ServiceImplementation, UnaryHandler,
} from "./handlers.js";
