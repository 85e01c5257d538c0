// grpc.health.v1 as published in grpc/grpc (src/proto/grpc/health/v1/health.proto), restated
// here so the health service needs no file on disk; parsed once, on first use.
import { loadProtoSource, type ServiceDescriptor } from "../proto/index.js";

export const HEALTH_PROTO_SOURCE = `
syntax = "proto3";

package grpc.health.v1;

message HealthCheckRequest {
  string service = 1;
}

message HealthCheckResponse {
  enum ServingStatus {
    UNKNOWN = 0;
    SERVING = 1;
    NOT_SERVING = 2;
    SERVICE_UNKNOWN = 3;  // Used only by the Watch method.
  }
  ServingStatus status = 1;
}

service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
  rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
}
`;

let descriptor: ServiceDescriptor | undefined;

/** The `grpc.health.v1.Health` service descriptor. */
export function healthServiceDescriptor(): ServiceDescriptor {
  if (descriptor === undefined) {
    const root = loadProtoSource(HEALTH_PROTO_SOURCE, "grpc/health/v1/health.proto");
    descriptor = root.services.get("grpc.health.v1.Health")!;
  }
  return descriptor;
}
