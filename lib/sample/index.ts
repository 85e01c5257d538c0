// The sample service as a module (for tests and for reading): `createSampleApp` wires it; main.ts
// runs it as a process.
export { createSampleApp, sampleRoutes, type SampleAppOptions, type SampleRoutes } from "./app.js";
export { DEV_JWT_SECRET, authRoutes, jwtSecretFor } from "./auth.js";
export { buildReport, createSampleJobQueue, jobRoutes } from "./jobs.js";
export { SAMPLE_SETTINGS } from "./settings.js";
export { broken, echoText, hello, listProjects, ping } from "./system.js";
export { CreateUser, DuplicateEmailError, User, UserStore, userRoutes, type UserRecord, type UserRoutes, type UserTable } from "./users.js";
export { SqlUserTable } from "./sql-users.js";
export { MAX_UPLOAD_BYTES, UploadReceipt, uploadFile } from "./uploads.js";
export { HOME_PAGE_USERS, PUBLIC_DIR, homePage, staticFiles } from "./web.js";
export { eventRoutes, TICK_MS } from "./events.js";
export { bearerFromProtocol, MAX_WS_MESSAGE, realtimeRoutes, roomsMetrics, sampleChatRooms } from "./realtime.js";
export { registerSampleGrpc, USERS_PROTO, type SampleGrpcOptions } from "./grpc.js";
export { DEFAULT_DATA_DIR, SAMPLE_DB_FILE, migrateSample, openSamplePostgres, openSampleSqlite, sampleMigrationsDir } from "./database.js";
