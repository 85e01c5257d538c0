// A gRPC server (HTTP/2, cleartext) for the service in greeter.proto: a unary call, a
// server-streaming call, and grpc.health.v1 beside them. An ApiError becomes the gRPC status
// (400 → INVALID_ARGUMENT, 404 → NOT_FOUND...).
// Run: PORT=50051 npx tsx grpc.ts, then
//   grpcurl -plaintext -proto greeter.proto -d '{"name":"ada"}' localhost:50051 greeter.v1.Greeter/SayHello
import { fileURLToPath } from "node:url";
import { ApiError } from "keel";
import { grpcServer, healthService, loadProtoFile } from "keel/grpc";

// Messages as the codec gives them: proto3 fields in camelCase, defaults filled in.
interface HelloRequest {
  name: string;
  times: number;
}

const proto = loadProtoFile(fileURLToPath(new URL("./greeter.proto", import.meta.url)));
const greeter = proto.services.get("greeter.v1.Greeter")!;

const checkName = (name: string) => {
  if (name === "" || name.length > 40) throw ApiError.badRequest("name must be 1 to 40 characters");
  return name;
};

const server = grpcServer()
  .addService(greeter, {
    SayHello: (req: HelloRequest) => ({ message: `Hello, ${checkName(req.name)}!` }),
    // A streaming reply is an async generator; call.signal aborts if the client cancels.
    SayHelloMany: async function* (req: HelloRequest, call) {
      if (req.times < 1 || req.times > 10) throw ApiError.badRequest("times must be 1 to 10");
      for (let i = 1; i <= req.times && !call.signal.aborted; i++) yield { message: `Hello #${i}, ${checkName(req.name)}!` };
    },
  })
  .addService(healthService({ "greeter.v1.Greeter": "SERVING" }));

const listening = await server.listen({ port: Number(process.env["PORT"] ?? 50051) });
console.log(`listening on ${listening.url}`);

// close() reports NOT_SERVING, sends GOAWAY and lets calls in flight finish.
const stop = () => void listening.close();
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
