// Configuration of a keel service (`node dist/server.js`): flags, environment variables,
// defaults, --help. Bad values print a clear message and exit with code 2. An app declares its
// own settings (`settings`, same shape as the built-in options) so they are parsed, validated
// and listed in --help the same way, instead of being read from process.env here and there.
import { availableParallelism } from "node:os";
import { KEEL_ENV_VALUES } from "../../plugin.js";
import { DEFAULT_SERVER_LIMITS } from "../../index.js";
import { parseLogLevel } from "../observability/json-logger.js";
import { defaultMaxConnections, openFileLimit } from "./fd-limit.js";
import { booleanValue, CliUsageError, formatCliHelp, integerIn, oneOf, parseCli, type CliOption, type CliSpec, type CliValues, type EnvironmentHelp } from "./cli-options.js";

export interface ServiceConfig<S extends CliSpec = {}> {
  host: string;
  port: number;
  /** KEEL_ENV: "production" masks 5xx messages. */
  env: string;
  /** null: one process, no cluster. 0: one worker per CPU. N: N workers. */
  workers: number | null;
  /** Numeric log threshold (Infinity for silent). */
  logLevel: number;
  /** Deadline of the shutdown (in-flight requests, then hooks) after the pre-stop delay, ms; past it the process exits 1. */
  shutdownTimeoutMs: number;
  /** Keep well-formed incoming x-request-id values (turn off at an untrusted edge). */
  trustRequestId: boolean;
  /** On SIGTERM keep serving this long (ms) while /ready says draining. */
  preStopDelayMs: number;
  /** Connection limits handed to listen() (see lib/server/server-limits.ts). */
  limits: {
    headersTimeout: number;
    requestTimeout: number;
    keepAliveTimeout: number;
    maxHeaderSize: number;
    maxRequestsPerSocket: number;
    maxConnections: number;
  };
  /** The app's own settings, by key (undefined when neither the flag nor the variable is set). */
  settings: CliValues<S>;
}

const hostValue = (raw: string): string => {
  const s = raw.trim();
  if (!/^[A-Za-z0-9.:[\]_-]{1,253}$/.test(s)) throw new Error("expected a host name or IP address");
  return s.startsWith("[") && s.endsWith("]") ? s.slice(1, -1) : s;
};

const logLevelValue = (raw: string): number => {
  try {
    return parseLogLevel(raw);
  } catch {
    throw new Error("expected trace, debug, info, warn, error, fatal or silent");
  }
};

const cpuNote = (): string => `one per CPU, ${availableParallelism()} here`;

export const SERVICE_OPTIONS = {
  host: { flag: "host", env: "HOST", value: "HOST", description: "Interface to listen on", defaultText: "127.0.0.1", parse: hostValue } as CliOption<string>,
  port: { flag: "port", env: "PORT", value: "N", description: "TCP port (0 picks a free one)", defaultText: "8080", parse: integerIn(0, 65535) } as CliOption<number>,
  env: {
    flag: "env",
    env: "KEEL_ENV",
    value: "NAME",
    description: `Environment, one of ${KEEL_ENV_VALUES.join(", ")}; production masks 5xx error messages and requires secrets`,
    defaultText: "development",
    // Validated like every other setting: a typo must not half-apply production.
    parse: oneOf(KEEL_ENV_VALUES),
  } as CliOption<string>,
  workers: {
    flag: "workers",
    env: "WORKERS",
    value: "N",
    description: "Run N worker processes with node:cluster (0 = one per CPU); unset = one process",
    parse: integerIn(0, 1024),
  } as CliOption<number>,
  logLevel: {
    flag: "log-level",
    env: "LOG_LEVEL",
    value: "LEVEL",
    description: "trace, debug, info, warn, error, fatal or silent",
    defaultText: "info",
    parse: logLevelValue,
  } as CliOption<number>,
  shutdownTimeout: {
    flag: "shutdown-timeout",
    env: "SHUTDOWN_TIMEOUT_MS",
    value: "MS",
    description: "How long the shutdown may take after SIGTERM/SIGINT (after the pre-stop delay): in-flight requests (cut off when a quarter of it, at most 1 s, is left), then shutdown hooks; past it the process says what was pending and exits 1",
    defaultText: "10000",
    parse: integerIn(0, 600_000),
  } as CliOption<number>,
  preStopDelay: {
    flag: "pre-stop-delay",
    env: "PRE_STOP_DELAY_MS",
    value: "MS",
    description: "After SIGTERM keep accepting and answering (with connection: close) this long while /ready says 503, so a load balancer can stop sending first",
    defaultText: "0",
    parse: integerIn(0, 600_000),
  } as CliOption<number>,
  headersTimeout: {
    flag: "headers-timeout",
    env: "HEADERS_TIMEOUT_MS",
    value: "MS",
    description: "Time a client has to send the request headers (then 408)",
    defaultText: String(DEFAULT_SERVER_LIMITS.headersTimeout),
    parse: integerIn(1, 600_000),
  } as CliOption<number>,
  requestTimeout: {
    flag: "request-timeout",
    env: "REQUEST_TIMEOUT_MS",
    value: "MS",
    description: "Time a client has to send the whole request, body included (then 408; 0 = none)",
    defaultText: String(DEFAULT_SERVER_LIMITS.requestTimeout),
    parse: integerIn(0, 3_600_000),
  } as CliOption<number>,
  keepAliveTimeout: {
    flag: "keep-alive-timeout",
    env: "KEEP_ALIVE_TIMEOUT_MS",
    value: "MS",
    description: "How long an idle keep-alive connection stays open",
    defaultText: String(DEFAULT_SERVER_LIMITS.keepAliveTimeout),
    parse: integerIn(0, 600_000),
  } as CliOption<number>,
  maxHeaderSize: {
    flag: "max-header-size",
    env: "MAX_HEADER_SIZE",
    value: "BYTES",
    description: "Largest request line and headers (then 431)",
    defaultText: String(DEFAULT_SERVER_LIMITS.maxHeaderSize),
    parse: integerIn(1024, 1_048_576),
  } as CliOption<number>,
  maxRequestsPerSocket: {
    flag: "max-requests-per-socket",
    env: "MAX_REQUESTS_PER_SOCKET",
    value: "N",
    description: "Requests one connection may carry before it is closed (0 = no limit)",
    defaultText: String(DEFAULT_SERVER_LIMITS.maxRequestsPerSocket),
    parse: integerIn(0, 1_000_000),
  } as CliOption<number>,
  maxConnections: {
    flag: "max-connections",
    env: "MAX_CONNECTIONS",
    value: "N",
    description: "Open connections at once; more are refused (0 = no limit)",
    defaultText: `90% of the open-file limit (${defaultMaxConnections(openFileLimit()) || "no limit"} here)`,
    parse: integerIn(0, 10_000_000),
  } as CliOption<number>,
  trustRequestId: {
    flag: "trust-request-id",
    env: "TRUST_REQUEST_ID",
    value: "BOOL",
    description: "Keep well-formed incoming x-request-id headers (false at an untrusted edge)",
    defaultText: "true",
    parse: booleanValue,
  } as CliOption<boolean>,
} as const;

/** The built-in options plus the app's settings; a clash of key, flag or variable is a programming error. */
function allOptions(settings: CliSpec): CliSpec {
  const flags = new Set(Object.values(SERVICE_OPTIONS).map((o) => o.flag));
  const vars = new Set(Object.values(SERVICE_OPTIONS).map((o) => o.env));
  for (const [key, opt] of Object.entries(settings)) {
    if (key in SERVICE_OPTIONS || flags.has(opt.flag) || (opt.env !== undefined && vars.has(opt.env))) {
      throw new TypeError(`service setting ${key} (--${opt.flag}) clashes with a built-in option`);
    }
    flags.add(opt.flag);
    if (opt.env !== undefined) vars.add(opt.env);
  }
  return { ...SERVICE_OPTIONS, ...settings };
}

/** Parsed configuration, or "help"/"version" when --help/-h or --version was given. Throws CliUsageError on bad input. */
export function parseServiceConfig<S extends CliSpec = {}>(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  settings: S = {} as S,
): ServiceConfig<S> | "help" | "version" {
  const spec = allOptions(settings);
  const parsed = parseCli(spec, argv, env);
  if (parsed.help) return "help";
  if (parsed.version) return "version";
  const values = parsed.values as CliValues<typeof SERVICE_OPTIONS>;
  const headers = values.headersTimeout ?? DEFAULT_SERVER_LIMITS.headersTimeout;
  const request = values.requestTimeout ?? DEFAULT_SERVER_LIMITS.requestTimeout;
  if (request > 0 && headers > request) {
    throw new CliUsageError(`the headers timeout (${headers} ms, --headers-timeout or HEADERS_TIMEOUT_MS) must not exceed the request timeout (${request} ms, --request-timeout or REQUEST_TIMEOUT_MS)`);
  }
  const own: Record<string, unknown> = {};
  for (const key of Object.keys(settings)) own[key] = (parsed.values as Record<string, unknown>)[key];
  return {
    host: values.host ?? "127.0.0.1",
    port: values.port ?? 8080,
    env: values.env ?? "development",
    workers: values.workers ?? null,
    logLevel: values.logLevel ?? 30,
    shutdownTimeoutMs: values.shutdownTimeout ?? 10_000,
    trustRequestId: values.trustRequestId ?? true,
    preStopDelayMs: values.preStopDelay ?? 0,
    limits: {
      headersTimeout: headers,
      requestTimeout: request,
      keepAliveTimeout: values.keepAliveTimeout ?? DEFAULT_SERVER_LIMITS.keepAliveTimeout,
      maxHeaderSize: values.maxHeaderSize ?? DEFAULT_SERVER_LIMITS.maxHeaderSize,
      maxRequestsPerSocket: values.maxRequestsPerSocket ?? DEFAULT_SERVER_LIMITS.maxRequestsPerSocket,
      maxConnections: values.maxConnections ?? defaultMaxConnections(openFileLimit()),
    },
    settings: own as CliValues<S>,
  };
}

export function serviceHelp(program = "node dist/server.js", description = "A keel service.", settings: CliSpec = {}, environment: EnvironmentHelp = {}): string {
  const spec = allOptions(settings);
  // A variable listed twice (as a setting's and as read directly) would be read two ways.
  for (const name of Object.keys(environment)) {
    if (Object.values(spec).some((o) => o.env === name)) throw new TypeError(`service environment variable ${name} is also a setting's variable`);
  }
  return formatCliHelp(
    spec,
    `${program} [options]`,
    description +
      // A description that ends a block (the list of subcommands) is followed by a blank line.
      (description.endsWith("\n") ? "\n" : " ") +
      "Logs are JSON lines on stdout (pino format).\n" +
      `SIGTERM/SIGINT drain in-flight requests, then exit 0 (1 when past --shutdown-timeout). --workers 0 means ${cpuNote()}.`,
    environment,
  );
}

/** The worker count for a configured value: 0 means one per CPU. */
export function resolveWorkerCount(workers: number): number {
  return workers === 0 ? availableParallelism() : workers;
}

export interface ConfigIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  exit?: (code: number) => never;
}

/** Parse, or print help (exit 0) / the problem (exit 2). For `main()`s. */
export function loadServiceConfig<S extends CliSpec = {}>(
  argv: readonly string[] = process.argv.slice(2),
  env: Readonly<Record<string, string | undefined>> = process.env,
  program = "node dist/server.js",
  io: ConfigIo = {},
  description?: string,
  settings: S = {} as S,
  version = "unknown",
  environment: EnvironmentHelp = {},
): ServiceConfig<S> {
  const out = io.stdout ?? ((s: string) => void process.stdout.write(s));
  const err = io.stderr ?? ((s: string) => void process.stderr.write(s));
  const exit = io.exit ?? ((code: number) => process.exit(code));
  try {
    const config = parseServiceConfig(argv, env, settings);
    if (config === "help") {
      out(serviceHelp(program, description, settings, environment));
      return exit(0);
    }
    if (config === "version") {
      out(version + "\n");
      return exit(0);
    }
    return config;
  } catch (e) {
    if (e instanceof CliUsageError) {
      err(`${program.split(" ").pop()}: ${e.message}\n`);
      return exit(e.exitCode);
    }
    throw e;
  }
}
