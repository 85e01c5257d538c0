// `node dist/server.js`: the sample service as a process. `--help` lists flags and environment
// variables (the sample's own settings included); `--workers N` runs a node:cluster of N
// processes; SIGTERM/SIGINT drain and exit 0. This file is the executable entry: nothing imports it.
import { runAuditCommand } from "../audit/index.js";
import { FileReplayStore, runReplayCommand } from "../replay/index.js";
import { createJsonLogger, type Logger } from "../index.js";
import { mcpServer, serveMcpStdio } from "../mcp/index.js";
import { otlpExportMetrics } from "../metrics/index.js";
import { OTEL_ENV_VARIABLES, otlpExporterFromEnv } from "../otel/index.js";
import { runService } from "../service/index.js";
import { redisClient } from "../redis/index.js";
import { createSampleApp } from "./app.js";
import { SAMPLE_SETTINGS } from "./settings.js";
import { runMigrateCommand } from "./migrate-command.js";
import { openSamplePostgres, openSampleSqlite } from "./database.js";
import { defined } from "../plugin.js";

// Spans go to an OTLP collector when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says where (the OTel SDK's
// variables: headers, service name, resource attributes, sampler); otherwise only to the log.
// A collector that fails is logged (rate-limited), counted on /metrics (keel_otlp_*) and shown as
// the non-critical "otlp" check of /health; on shutdown what it cannot take in time is dropped.
const otelConfigured = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].some((name) => (process.env[name] ?? "").trim() !== "");
// The exporter is made before runService makes the service's logger (the spans need it first):
// its lines go to that logger once createApp has it.
let serviceLogger: Logger | null = null;
const otelLogger: Logger = {
  get level() {
    return serviceLogger?.level ?? Infinity;
  },
  log: (level, msg, fields) => serviceLogger?.log(level, msg, fields),
};
const otel = otelConfigured ? otlpExporterFromEnv(process.env, { serviceName: "keel-sample", resource: { "service.version": "0.1.0" }, logger: otelLogger }) : null;

/** `mcp`: the sample's user routes as MCP tools over stdio; stdout carries the protocol, so the app logs to stderr. */
async function serveSampleMcp(): Promise<number> {
  const app = createSampleApp({ logger: createJsonLogger({ level: "warn", write: (line) => process.stderr.write(line) }) });
  await serveMcpStdio(mcpServer(app, { name: "keel-sample", version: "0.1.0", tools: { tags: ["users"] }, path: false }));
  return 0;
}

await runService({
  service: "keel-sample",
  version: "0.1.0",
  description: "The keel sample service: every endpoint of the spec's sample application.",
  settings: SAMPLE_SETTINGS,
  environment: OTEL_ENV_VARIABLES,
  ...(otel === null ? {} : { production: { spans: { onSpan: otel, sampler: otel.sampler } } }),
  commands: {
    replay: {
      summary: "<id> --target URL (or: list): re-send a recorded request and show what changed; reads KEEL_REPLAY_FILE",
      run: (argv, io) => {
        const file = process.env["KEEL_REPLAY_FILE"];
        if (file === undefined || file === "") {
          io.stderr("replay: set KEEL_REPLAY_FILE to the file the service records into\n");
          return 2;
        }
        return runReplayCommand(argv, io, { store: new FileReplayStore({ path: file }) });
      },
    },
    mcp: { summary: "serve the user routes as MCP tools over stdio (JSON-RPC lines on stdin/stdout, logs on stderr)", run: () => serveSampleMcp() },
    migrate: { summary: "[--data-dir DIR]: apply the sample's migrations to its database (Postgres with DATABASE_URL, else SQLite under KEEL_DATA_DIR) and exit", run: (argv, io) => runMigrateCommand(argv, io) },
    audit: { summary: "verify [--anchor SEQ:HASH] <dir>: check the audit log's hash chain (exit 0 intact, 1 tampered)", run: (argv, io) => runAuditCommand(argv, io) },
  },
  createApp: async (config, prod, shutdown) => {
    const s = config.settings;
    serviceLogger = prod.logger;
    if (otel !== null) prod.check("otlp", otel.healthCheck(), { critical: false });
    // The users: Postgres with DATABASE_URL (migrated when asked), else SQLite under --data-dir,
    // migrated (memory on Node 20); the app closes (drains) it on shutdown.
    const database = s.databaseUrl !== undefined ? await openSamplePostgres(s.databaseUrl, s.migrate === true, prod.logger) : await openSampleSqlite(s.dataDir, prod.logger);
    const app = createSampleApp({
      ...(database === undefined ? {} : { database }),
      ...(s.redisUrl === undefined ? {} : { redis: redisClient({ url: s.redisUrl, name: "keel-sample" }) }),
      ...defined({ jobLeaseMs: s.jobLeaseMs, reportDelayMs: s.reportDelayMs }),
      ...defined({ eventsMaxSubscribers: s.eventsMaxSubscribers }),
      env: config.env,
      production: prod,
      ...defined({ jwtSecret: config.settings.jwtSecret, corsOrigins: config.settings.corsOrigins }),
      ...(config.settings.grpcPort === undefined ? {} : { grpc: { port: config.settings.grpcPort, host: config.host } }),
      ...defined({ adminToken: config.settings.adminToken, auditDir: config.settings.auditDir, replayFile: config.settings.replayFile }),
      ...(otel === null ? {} : { metricsCollectors: [otlpExportMetrics(otel)] }),
    });
    // After the HTTP drain: export what is still queued, within what is left of the shutdown
    // budget (a collector that never answers must not hold the process past it).
    if (otel !== null) app.onShutdown(() => otel.shutdown({ timeoutMs: shutdown.remainingMs() }));
    return app;
  },
});
