// grpc.health.v1.Health for keel's gRPC server.
export { HealthService, healthService, type ServingStatus } from "./health.js";
export { HEALTH_PROTO_SOURCE, healthServiceDescriptor } from "./health-proto.js";
