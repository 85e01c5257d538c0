// The production logger: pino-compatible JSON lines (`level` number, `time` epoch ms, `pid`,
// `hostname`, base fields such as `service`, `msg`, then the record's fields) written through a
// buffered, non-blocking LogDestination. Secret-named fields are redacted at any depth.
// It implements core's Logger, so it can be the app's logger; the access-log layer uses its
// `prefix`/`writeLine` to build request lines by concatenation instead of through an object.
import { hostname } from "node:os";
import type { Writable } from "node:stream";
import { LOG_LEVELS, type Logger, type LogLevelName } from "../../util/logger.js";
import { createLogDestination, type LogDestination } from "./log-destination.js";
import { redactingReplacer, secretNameSet } from "./redact.js";

export interface BufferedLoggerOptions {
  /** Threshold: a level name, a number, or "silent" (default "info"). */
  level?: LogLevelName | "silent" | number;
  /** A LogDestination, a file descriptor or a Writable (default: buffered fd 1, stdout). */
  destination?: LogDestination | number | Writable;
  /** Fields on every line, after pid/hostname (e.g. `{ service, version }`). */
  base?: Readonly<Record<string, unknown>>;
  /** Add `pid` and `hostname` like pino (default true). */
  processFields?: boolean;
  /** Field names redacted at any depth (default SECRET_HEADERS). */
  redact?: readonly string[];
}

export interface JsonLogger extends Logger {
  readonly destination: LogDestination;
  /** `,"pid":1,"hostname":"h","service":"s"`: the base fields as JSON, ready to concatenate. */
  readonly baseJson: string;
  /** A line's start for `level` up to and including its `time` and base fields (no `msg`). */
  prefix(level: number): string;
  /** Queue a complete line (must end in "\n"). */
  writeLine(line: string): void;
  flush(): Promise<void>;
  flushSync(): void;
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

function isDestination(d: unknown): d is LogDestination {
  return typeof d === "object" && d !== null && typeof (d as LogDestination).flushSync === "function" && typeof (d as LogDestination).write === "function";
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

export function createBufferedLogger(options: BufferedLoggerOptions = {}): JsonLogger {
  const level = parseLogLevel(options.level ?? "info");
  const d = options.destination;
  const destination = isDestination(d) ? d : createLogDestination(d === undefined ? {} : { target: d });
  const replacer = redactingReplacer(secretNameSet(options.redact));
  const baseJson = baseFieldsJson(options.base ?? {}, options.processFields ?? true, replacer);

  const prefix = (l: number): string => '{"level":' + l + ',"time":' + Date.now() + baseJson;

  return {
    level,
    destination,
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
      destination.write(prefix(l) + ',"msg":' + JSON.stringify(String(msg)) + tail + "}\n");
    },
    writeLine(line) {
      destination.write(line);
    },
    flush: () => destination.flush(),
    flushSync: () => destination.flushSync(),
  };
}

/** True for loggers made by createBufferedLogger (they take the access log's fast path). */
export function isJsonLogger(logger: Logger): logger is JsonLogger {
  const l = logger as Partial<JsonLogger>;
  return typeof l.prefix === "function" && typeof l.writeLine === "function" && typeof l.baseJson === "string";
}
