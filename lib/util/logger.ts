// The logger keel writes through. Lines are JSON objects in pino's conventions (numeric `level`,
// `time` in epoch ms, `msg`), so pino-pretty and log pipelines read them. The production
// baseline brings a buffered, configurable logger; this default writes errors to stderr.

export const LOG_LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevelName = keyof typeof LOG_LEVELS;

export interface Logger {
  /** Numeric threshold; records below it are dropped before they are built. */
  readonly level: number;
  log(level: number, msg: string, fields?: Record<string, unknown>): void;
}

export interface JsonLoggerOptions {
  level?: LogLevelName | number;
  /** Where lines go (default process.stderr). */
  write?: (line: string) => void;
  /** Fields added to every line (service, version, ...). */
  base?: Record<string, unknown>;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const level = typeof options.level === "number" ? options.level : LOG_LEVELS[options.level ?? "info"];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const base = options.base ?? {};
  return {
    level,
    log(l, msg, fields) {
      if (l < level) return;
      let line: string;
      try {
        line = JSON.stringify({ level: l, time: Date.now(), ...base, msg, ...fields }) + "\n";
      } catch {
        line = JSON.stringify({ level: l, time: Date.now(), ...base, msg, note: "fields were not serializable" }) + "\n";
      }
      write(line);
    },
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { level: Infinity, log() {} };
