// The production logger: the kernel's JSON logger (lib/util/logger.ts builds every line) layered
// on a buffered, non-blocking LogDestination, with `pid`/`hostname` on every line and
// secret-named fields redacted at any depth.
import type { Writable } from "node:stream";
import type { LogLevelName } from "../../index.js";
import { buildJsonLogger, type JsonLogger } from "../../plugin.js";
import { createLogDestination, type LogDestination } from "./log-destination.js";
import { SECRET_HEADERS } from "./redact.js";

export { isJsonLogger, parseLogLevel, type JsonLogger } from "../../plugin.js";

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

/** A JsonLogger writing through a LogDestination. */
export interface BufferedLogger extends JsonLogger {
  readonly destination: LogDestination;
}

function isDestination(d: unknown): d is LogDestination {
  return typeof d === "object" && d !== null && typeof (d as LogDestination).flushSync === "function" && typeof (d as LogDestination).write === "function";
}

export function createBufferedLogger(options: BufferedLoggerOptions = {}): BufferedLogger {
  const d = options.destination;
  // The "log lines dropped" notice carries the same pid/hostname/service fields as every line.
  let prefix: ((level: number) => string) | null = null;
  const dropNotice = (dropped: number): string =>
    (prefix === null ? '{"level":40,"time":' + Date.now() : prefix(40)) + ',"msg":"log lines dropped","dropped":' + dropped + "}\n";
  const destination = isDestination(d) ? d : createLogDestination(d === undefined ? { dropNotice } : { target: d, dropNotice });
  const logger = buildJsonLogger({
    level: options.level ?? "info",
    sink: destination,
    base: options.base ?? {},
    processFields: options.processFields ?? true,
    redact: options.redact ?? SECRET_HEADERS,
  });
  prefix = logger.prefix;
  return { ...logger, destination };
}
