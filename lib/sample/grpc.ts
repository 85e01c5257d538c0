// The sample's gRPC service, `users.v1.Users`, over the same user table as the HTTP routes:
// `GetUser` (unary) and `ListUsers` (server-streaming, a page at a time in the stream's order),
// with `grpc.health.v1.Health` beside it. It listens on its own port (GRPC_PORT / --grpc-port;
// off unless set), starts when the HTTP server starts and drains with it.
import { ApiError, type App, type Logger } from "../index.js";
import { grpcServer, healthService, loadProtoSource, type GrpcListeningServer } from "../grpc/index.js";
import type { UserTable } from "./users.js";

/** The service definition, shipped inside the bundle (dist/server.js has no .proto files beside it). */
export const USERS_PROTO = `syntax = "proto3";

package users.v1;

message User {
  uint64 id = 1;
  string email = 2;
}

message GetUserRequest {
  uint64 id = 1;
}

message ListUsersRequest {
  // Users per message batch read from the table (1-100; 0 means 20). The stream sends them all.
  uint32 page_size = 1;
  // Start after this id (0: from the first user).
  uint64 after_id = 2;
}

service Users {
  rpc GetUser(GetUserRequest) returns (User);
  rpc ListUsers(ListUsersRequest) returns (stream User);
}
`;

const MAX_PAGE = 100;

interface UserMessage {
  id: string;
  email: string;
}

/** Parse a uint64 the codec gives as a decimal string; the table's ids are safe integers. */
function idOf(value: unknown, field: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw ApiError.badRequest(`${field} must be a user id`);
  return n;
}

export interface SampleGrpcOptions {
  port: number;
  host: string;
}

/** Start `users.v1.Users` when the app listens; close it (health NOT_SERVING, GOAWAY, drain) on shutdown. */
export function registerSampleGrpc(app: App, users: UserTable, options: SampleGrpcOptions, logger: Logger): void {
  const root = loadProtoSource(USERS_PROTO, "users/v1/users.proto");
  const service = root.services.get("users.v1.Users")!;
  const server = grpcServer({ logger, env: app.runtime.production ? "production" : "development", errorMappers: app.runtime.errorMappers })
    .addService(service, {
      GetUser: async (req: { id: string }): Promise<UserMessage> => {
        const id = idOf(req.id, "id");
        if (id === 0) throw ApiError.badRequest("id must be at least 1");
        const user = await users.find(id);
        if (user === undefined) throw ApiError.notFound(`user ${id} not found`);
        return { id: String(user.id), email: user.email };
      },
      ListUsers: async function* (req: { pageSize: number; afterId: string }, call): AsyncIterable<UserMessage> {
        const size = req.pageSize === 0 ? 20 : req.pageSize;
        if (size > MAX_PAGE) throw ApiError.badRequest(`page_size must be at most ${MAX_PAGE}`);
        let after = idOf(req.afterId, "after_id");
        for (;;) {
          const page = await users.pageAfter(after, size);
          for (const u of page) {
            if (call.signal.aborted) return;
            yield { id: String(u.id), email: u.email };
          }
          if (page.length < size) return;
          after = page[page.length - 1]!.id;
        }
      },
    })
    .addService(healthService({ "users.v1.Users": "SERVING" }));
  let listening: Promise<GrpcListeningServer> | null = null;
  app.onListen(() => {
    listening = server.listen({ port: options.port, host: options.host });
    listening.then(
      (s) => logger.log(30, "grpc listening", { url: s.url, services: ["users.v1.Users", "grpc.health.v1.Health"] }),
      (err: unknown) => logger.log(60, "grpc server failed to start", { message: err instanceof Error ? err.message : String(err), port: options.port }),
    );
  });
  app.onShutdown(async () => {
    if (listening !== null) await listening.then((s) => s.close(), () => undefined);
  });
}
