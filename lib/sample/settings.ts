// The sample's own settings, declared once: parsed and validated with the service's built-in
// options (a bad value exits 2 with the reason), listed in `--help`, handed to createSampleApp.
import { booleanValue, type CliOption } from "../service/index.js";
import { parseRedisUrl } from "../redis/index.js";

/** HS256 needs at least 32 bytes of secret (RFC 7518 §3.2); shorter is refused, not padded. */
function jwtSecretValue(raw: string): string {
  if (Buffer.byteLength(raw) < 32) throw new Error("expected a secret of at least 32 bytes");
  return raw;
}

/** A comma-separated list of exact origins (`https://app.example.com`). `*` and `null` are refused: credentials are on. */
function originListValue(raw: string): string[] {
  const origins = raw.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const o of origins) {
    if (!/^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(o) && !/^https?:\/\/\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$/.test(o)) {
      throw new Error(`expected comma-separated origins like https://app.example.com (no "*", "null" or paths), ${JSON.stringify(o)} is not one`);
    }
  }
  return origins;
}

/** The admin token: a secret of at least 16 printable characters. */
function adminTokenValue(raw: string): string {
  if (raw.length < 16 || !/^[\x21-\x7e]+$/.test(raw)) throw new Error("expected at least 16 printable characters without spaces");
  return raw;
}

/** An integer of milliseconds within [min, max]. */
function millisecondsValue(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!/^\d{1,9}$/.test(raw) || n < min || n > max) throw new Error(`expected a whole number of milliseconds from ${min} to ${max}`);
    return n;
  };
}

/** A redis:// or rediss:// URL (checked now, so a typo exits 2 instead of failing on the first request). */
function redisUrlValue(raw: string): string {
  parseRedisUrl(raw);
  return raw;
}

/** A whole number within [min, max]. */
function countValue(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const n = Number(raw);
    if (!/^\d{1,9}$/.test(raw) || n < min || n > max) throw new Error(`expected a whole number from ${min} to ${max}`);
    return n;
  };
}

/** A TCP port for the gRPC server (0 picks a free one). */
function portValue(raw: string): number {
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n > 65535) throw new Error("expected a port number from 0 to 65535");
  return n;
}

export const SAMPLE_SETTINGS = {
  jwtSecret: {
    flag: "jwt-secret",
    env: "KEEL_JWT_SECRET",
    value: "SECRET",
    description: "HS256 secret of the JWT routes, at least 32 bytes (prefer the variable: flags show in ps); required in production",
    defaultText: "a development secret outside production",
    parse: jwtSecretValue,
    secret: true,
  } as CliOption<string>,
  corsOrigins: {
    flag: "cors-origins",
    env: "KEEL_CORS_ORIGINS",
    value: "ORIGINS",
    description: "Browser origins allowed to call the API with credentials, comma-separated",
    defaultText: "none (CORS off)",
    parse: originListValue,
  } as CliOption<string[]>,
  adminToken: {
    flag: "admin-token",
    env: "KEEL_ADMIN_TOKEN",
    value: "TOKEN",
    description: "Bearer token of the admin endpoints /admin/insight and /admin/replays (at least 16 characters; prefer the variable)",
    defaultText: "none: no admin endpoints",
    parse: adminTokenValue,
    secret: true,
  } as CliOption<string>,
  auditDir: {
    flag: "audit-dir",
    env: "KEEL_AUDIT_DIR",
    value: "DIR",
    description: "Directory of the audit log (hash-chained JSONL files; check with `audit verify DIR`)",
    defaultText: "in memory",
    parse: (raw: string) => {
      if (raw.trim() === "") throw new Error("expected a directory");
      return raw;
    },
  } as CliOption<string>,
  replayFile: {
    flag: "replay-file",
    env: "KEEL_REPLAY_FILE",
    value: "FILE",
    description: "JSONL file of recorded requests (one in ten, secrets redacted), read by `replay <id> --target URL`",
    defaultText: "in memory",
    parse: (raw: string) => {
      if (raw.trim() === "") throw new Error("expected a file path");
      return raw;
    },
  } as CliOption<string>,
  grpcPort: {
    flag: "grpc-port",
    env: "GRPC_PORT",
    value: "PORT",
    description: "Serve the users.v1.Users gRPC service (and grpc.health.v1) on this port, beside HTTP",
    defaultText: "off",
    parse: portValue,
  } as CliOption<number>,
  redisUrl: {
    flag: "redis-url",
    env: "REDIS_URL",
    value: "URL",
    description:
      "Keep rate limits, idempotency keys and the job queue in Redis (redis://[user:pass@]host:port/db or rediss:// for TLS), so several instances share them (prefer the variable: flags show in ps)",
    defaultText: "none: in this process's memory",
    parse: redisUrlValue,
  } as CliOption<string>,
  jobLeaseMs: {
    flag: "job-lease",
    env: "KEEL_JOB_LEASE_MS",
    value: "MS",
    description: "With Redis: how long a running job stays claimed by an instance that stopped renewing it (it died) before another instance runs it again",
    defaultText: "30000",
    parse: millisecondsValue(100, 3_600_000),
  } as CliOption<number>,
  reportDelayMs: {
    flag: "report-delay",
    env: "KEEL_REPORT_DELAY_MS",
    value: "MS",
    description: "Simulated data-source latency of each report job, to watch retries, drains and recovery",
    defaultText: "0",
    parse: millisecondsValue(0, 600_000),
  } as CliOption<number>,
  eventsMaxSubscribers: {
    flag: "events-max-subscribers",
    env: "KEEL_EVENTS_MAX_SUBSCRIBERS",
    value: "N",
    description: "Server-sent event streams (/api/v1/events) open at once; one more is answered 503 with Retry-After",
    defaultText: "1000",
    parse: countValue(1, 1_000_000),
  } as CliOption<number>,
  databaseUrl: {
    flag: "database-url",
    env: "DATABASE_URL",
    value: "URL",
    description:
      "Keep the users in Postgres (postgres://user:pass@host:port/db?sslmode=...), shared by every instance; migrated on start only with --migrate (prefer the variable: flags show in ps; the password is never logged)",
    defaultText: "none: SQLite under --data-dir",
    // Checked (and named without its password) when the pool is made: a parse error here would echo the value.
    parse: (raw: string) => {
      if (raw.trim() === "") throw new Error("expected a postgres:// URL");
      return raw;
    },
  } as CliOption<string>,
  dataDir: {
    flag: "data-dir",
    env: "KEEL_DATA_DIR",
    value: "DIR",
    description: "Without DATABASE_URL: directory of the SQLite file keel-sample.db that keeps the users (Node 22.13+; on Node 20 they are kept in memory); created if missing, migrated on start",
    defaultText: "./data",
    parse: (raw: string) => {
      if (raw.trim() === "") throw new Error("expected a directory");
      return raw;
    },
  } as CliOption<string>,
  migrate: {
    flag: "migrate",
    env: "KEEL_MIGRATE",
    value: "",
    description: "Apply the sample's migrations on start when the database is shared (Postgres); SQLite is always migrated on start",
    defaultText: "off (run `migrate` as a release step)",
    parse: booleanValue,
  } as CliOption<boolean>,
} as const;
