// keel/grpc: a protobuf parser and codec, and a gRPC server on node:http2 with the standard
// health service. node:http2 is loaded only when a server listens.
export * from "./proto/index.js";
export * from "./server/index.js";
export * from "./health/index.js";
