// The one JSON logger of keel. Lines follow pino's conventions: `level` number, `time` epoch ms,
// optional `pid`/`hostname`, base fields, `msg`, then the record's fields, so pino-pretty and log
// pipelines read them. Every line is built here: `prefix` + `"msg"` + fields. Where lines go is
// an option: a write function (default: stdout, for every entry point), or a sink with flush (keel/service layers its
// buffered, non-blocking LogDestination on this).
import { hostname } from "node:os";

export const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

export interface Logger {
  /** Numeric threshold; records below it are dropped before they are built. */
  readonly level: number;
  log(level: number, msg: string, fields?: Record<string, unknown>): void;
}

/** Parse a level option; throws a RangeError naming the accepted values. */
export function parseLogLevel(level: string | number): number {
  if (typeof level === "number") {
    if (!Number.isFinite(level) && level !== Infinity) throw new RangeError(`invalid log level ${level}`);
    return level;
  }
  const name = level.trim().toLowerCase();
  if (name === "silent") return Infinity;
  if (Object.hasOwn(LOG_LEVELS, name)) return LOG_LEVELS[name as LogLevelName];
  if (/^\d{1,3}$/.test(name)) return Number(name);
  throw new RangeError(`invalid log level ${JSON.stringify(level)} (expected trace, debug, info, warn, error, fatal, silent or a number)`);
}

/** The value logged in place of a redacted field. */
export const REDACTED = "[Redacted]";

/**
 * The JSON.stringify replacer of every line: Error objects become pino's `err` shape
 * `{ type, message, stack, code? }` instead of `{}`, bigints become strings, and fields named in
 * `secrets` (lowercase; any depth, case-insensitive) become "[Redacted]".
 */
export function logReplacer(secrets: ReadonlySet<string> = new Set()): (key: string, value: unknown) => unknown {
  const redact = secrets.size > 0;
  return function replace(key, value) {
    if (redact && key !== "" && value !== undefined && secrets.has(key.toLowerCase())) return REDACTED;
    if (value instanceof Error) {
      const e = value as Error & { code?: unknown };
      return { type: e.name, message: e.message, stack: e.stack, ...(e.code === undefined ? {} : { code: e.code }) };
    }
    if (typeof value === "bigint") return value.toString();
    return value;
  };
}

/** Where lines go when they need more than a function: a buffered destination with flush. */
export interface LogSink {
  /** Take one complete line (ending in "\n"). Must not throw. */
  write(line: string): void;
  flush?(): Promise<void>;
  flushSync?(): void;
}

export interface JsonLoggerOptions {
  /** Threshold: a level name, "silent", or a number (default "info"). */
  level?: LogLevelName | "silent" | number;
  /** Where lines go (default process.stdout). Give either `write` or `sink`. */
  write?: (line: string) => void;
  /** A sink with flush (keel/service's LogDestination), instead of `write`. */
  sink?: LogSink;
  /** Fields on every line, after pid/hostname (service, version, ...). `level`, `time`, `msg` are reserved. */
  base?: Readonly<Record<string, unknown>>;
  /** Add `pid` and `hostname` like pino (default false). */
  processFields?: boolean;
  /** Field names redacted at any depth, case-insensitively (default none). */
  redact?: readonly string[];
}

/** A logger whose lines are built here: the access log appends its fields to `prefix` directly. */
export interface JsonLogger extends Logger {
  /** `,"pid":1,"hostname":"h","service":"s"`: the base fields as JSON, ready to concatenate. */
  readonly baseJson: string;
  /** A line's start for `level` up to and including its `time` and base fields (no `msg`). */
  prefix(level: number): string;
  /** Write a complete line (must end in "\n"). */
  writeLine(line: string): void;
  /** Resolves once every line is handed to the sink (at once for a plain write function). */
  flush(): Promise<void>;
  /** Best effort, synchronous (exit paths). */
  flushSync(): void;
}

function baseFieldsJson(base: Readonly<Record<string, unknown>>, processFields: boolean, replacer: (k: string, v: unknown) => unknown): string {
  const all: Record<string, unknown> = processFields ? { pid: process.pid, hostname: hostname() } : {};
  for (const key of Object.keys(base)) {
    if (key === "level" || key === "time" || key === "msg") throw new TypeError(`logger base field "${key}" is reserved`);
    all[key] = base[key];
  }
  const json = JSON.stringify(all, replacer);
  return json === "{}" ? "" : "," + json.slice(1, -1);
}

const writeStdout = (line: string): void => void process.stdout.write(line);
const resolved = (): Promise<void> => Promise.resolve();
const noop = (): void => {};

/**
 * A JSON logger (default: info and above to stdout). Typed as a plain Logger, as it always was;
 * the object is a JsonLogger (see isJsonLogger), so the access log takes its fast path.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  return buildJsonLogger(options);
}

/** createJsonLogger with its full type: what keel/service's buffered logger is built on. */
export function buildJsonLogger(options: JsonLoggerOptions = {}): JsonLogger {
  if (options.write !== undefined && options.sink !== undefined) throw new TypeError("createJsonLogger: give either write or sink, not both");
  const level = parseLogLevel(options.level ?? "info");
  const sink = options.sink;
  const write = sink !== undefined ? sink.write.bind(sink) : (options.write ?? writeStdout);
  const replacer = logReplacer(new Set((options.redact ?? []).map((n) => n.toLowerCase())));
  const baseJson = baseFieldsJson(options.base ?? {}, options.processFields ?? false, replacer);

  const prefix = (l: number): string => '{"level":' + l + ',"time":' + Date.now() + baseJson;

  return {
    level,
    baseJson,
    prefix,
    log(l, msg, fields) {
      if (l < level) return;
      let tail = "";
      if (fields !== undefined) {
        try {
          const json = JSON.stringify(fields, replacer);
          if (json !== undefined && json.length > 2) tail = "," + json.slice(1, -1);
        } catch {
          tail = ',"log_error":"fields were not serializable"';
        }
      }
      write(prefix(l) + ',"msg":' + JSON.stringify(String(msg)) + tail + "}\n");
    },
    writeLine: write,
    flush: sink?.flush === undefined ? resolved : () => sink.flush!(),
    flushSync: sink?.flushSync === undefined ? noop : () => sink.flushSync!(),
  };
}

/** True for loggers made by createJsonLogger (and keel/service's createBufferedLogger). */
export function isJsonLogger(logger: Logger): logger is JsonLogger {
  const l = logger as Partial<JsonLogger>;
  return typeof l.prefix === "function" && typeof l.writeLine === "function" && typeof l.baseJson === "string";
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { level: Infinity, log() {} };
