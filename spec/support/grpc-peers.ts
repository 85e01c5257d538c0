// @grpc/grpc-js and @grpc/proto-loader as test clients, installed on demand (test-peers.ts) and
// loaded with require from their folders. `skip` is the reason to skip when either is missing.
import { createRequire } from "node:module";
import { join } from "node:path";
import { testPeer } from "./test-peers.js";

type Any = any;

const grpcDir = await testPeer("@grpc/grpc-js", "1.14.7");
const loaderDir = await testPeer("@grpc/proto-loader", "0.8.1");

export const grpcPeersSkip: string | false = grpcDir === null || loaderDir === null ? "@grpc/grpc-js or @grpc/proto-loader could not be installed (offline?)" : false;
export const grpc: Any = grpcDir === null ? undefined : createRequire(join(grpcDir, "package.json"))(grpcDir);
export const protoLoader: Any = loaderDir === null ? undefined : createRequire(join(loaderDir, "package.json"))(loaderDir);
