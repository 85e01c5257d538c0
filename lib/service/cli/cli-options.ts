// A small command-line/environment parser: each option has a flag, an optional environment
// variable and a parse function. Precedence: flag, then environment, then default. Bad values
// and unknown flags raise CliUsageError (exit code 2), with a message naming the source.

import { redactUrlCredentials } from "../../shared/redact-url.js";

/** Exit code for bad usage (as in BSD sysexits' EX_USAGE convention used by most CLIs: 2). */
export const USAGE_EXIT_CODE = 2;

export class CliUsageError extends Error {
  readonly exitCode = USAGE_EXIT_CODE;
  constructor(message: string) {
    super(message);
    this.name = "CliUsageError";
  }
}

export interface CliOption<T> {
  /** Flag name without dashes: "port" is `--port 8080` or `--port=8080`. */
  readonly flag: string;
  /** Environment variable read when the flag is absent. */
  readonly env?: string;
  /** Placeholder in help ("N", "HOST"); "" for a switch that takes no value. */
  readonly value: string;
  readonly description: string;
  /** Shown in help as the default. */
  readonly defaultText?: string;
  /** Turns the raw text into a value; throw an Error whose message says what is expected. */
  parse(raw: string): T;
  /** A secret (a token, a key): a bad value's error gives its length, never the value. */
  readonly secret?: boolean;
}

/** Options by key; `parseCli` returns the same keys with parsed values (undefined when unset). */
export type CliSpec = Readonly<Record<string, CliOption<unknown>>>;
export type CliValues<S extends CliSpec> = { [K in keyof S]: S[K] extends CliOption<infer T> ? T | undefined : never };

export interface CliResult<S extends CliSpec> {
  values: CliValues<S>;
  help: boolean;
  /** --version was given (and no --help). */
  version: boolean;
}

function describeSource(opt: CliOption<unknown>, fromFlag: boolean): string {
  return fromFlag ? `--${opt.flag}` : `${opt.env}`;
}

function parseValue(opt: CliOption<unknown>, raw: string, fromFlag: boolean): unknown {
  try {
    return opt.parse(raw);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // The message goes to stderr and log shippers: a secret shows only its length.
    const got = opt.secret === true ? `a value of ${Buffer.byteLength(raw)} bytes` : JSON.stringify(redactUrlCredentials(raw));
    throw new CliUsageError(`${describeSource(opt, fromFlag)}: ${why}, got ${got}`);
  }
}

export function parseCli<S extends CliSpec>(spec: S, argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliResult<S> {
  const byFlag = new Map<string, string>();
  for (const key of Object.keys(spec)) byFlag.set(spec[key]!.flag, key);
  const fromFlags = new Map<string, string>();
  // --help wins over everything else on the line, including mistakes.
  if (argv.includes("--help") || argv.includes("-h")) return { values: {} as CliValues<S>, help: true, version: false };
  if (argv.includes("--version")) return { values: {} as CliValues<S>, help: false, version: true };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--") || arg === "--") throw new CliUsageError(`unexpected argument ${JSON.stringify(arg)} (see --help)`);
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const key = byFlag.get(name);
    if (key === undefined) throw new CliUsageError(`unknown option --${name} (see --help)`);
    const opt = spec[key]!;
    let raw: string;
    if (eq !== -1) raw = arg.slice(eq + 1);
    else if (opt.value === "") raw = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw new CliUsageError(`--${name} needs a value (${opt.value})`);
      raw = next;
      i++;
    }
    if (fromFlags.has(key)) throw new CliUsageError(`--${name} is given more than once`);
    fromFlags.set(key, raw);
  }

  const values: Record<string, unknown> = {};
  for (const key of Object.keys(spec)) {
    const opt = spec[key]!;
    const flagRaw = fromFlags.get(key);
    if (flagRaw !== undefined) {
      values[key] = parseValue(opt, flagRaw, true);
      continue;
    }
    const envRaw = opt.env === undefined ? undefined : env[opt.env];
    values[key] = envRaw === undefined || envRaw === "" ? undefined : parseValue(opt, envRaw, false);
  }
  return { values: values as CliValues<S>, help: false, version: false };
}

/** Help text: usage line, then one block per option with its environment variable and default. */
/** Variables a service reads directly (no flag), by name: the text --help shows for each. */
export type EnvironmentHelp = Readonly<Record<string, string>>;

export function formatCliHelp(spec: CliSpec, usage: string, intro = "", environment: EnvironmentHelp = {}): string {
  const lines: string[] = [`Usage: ${usage}`, ""];
  if (intro !== "") lines.push(intro, "");
  lines.push("Options (a flag wins over its environment variable):");
  const heads = Object.values(spec).map((o) => `  --${o.flag}${o.value === "" ? "" : ` ${o.value}`}`);
  const width = Math.max(...heads.map((h) => h.length), "  -h, --help".length) + 2;
  Object.values(spec).forEach((o, i) => {
    const extras: string[] = [];
    if (o.env !== undefined) extras.push(`env ${o.env}`);
    if (o.defaultText !== undefined) extras.push(`default ${o.defaultText}`);
    lines.push(heads[i]!.padEnd(width) + o.description + (extras.length > 0 ? ` [${extras.join("; ")}]` : ""));
  });
  lines.push("  --version".padEnd(width) + "Print the version and exit");
  lines.push("  -h, --help".padEnd(width) + "Show this help and exit");
  const names = Object.keys(environment);
  if (names.length > 0) {
    lines.push("", "Environment variables without a flag:");
    const envWidth = Math.max(...names.map((n) => n.length + 2)) + 2;
    for (const name of names) lines.push(`  ${name}`.padEnd(envWidth) + environment[name]);
  }
  return lines.join("\n") + "\n";
}

// --- value parsers ---------------------------------------------------------------------------

export function integerIn(min: number, max: number): (raw: string) => number {
  return (raw) => {
    const s = raw.trim();
    if (!/^\d{1,10}$/.test(s)) throw new Error(`expected an integer from ${min} to ${max}`);
    const n = Number(s);
    if (n < min || n > max) throw new Error(`expected an integer from ${min} to ${max}`);
    return n;
  };
}

export function oneOf<const V extends readonly string[]>(values: V): (raw: string) => V[number] {
  return (raw) => {
    const s = raw.trim().toLowerCase();
    const hit = values.find((v) => v === s);
    if (hit === undefined) throw new Error(`expected one of ${values.join(", ")}`);
    return hit;
  };
}

export function booleanValue(raw: string): boolean {
  const s = raw.trim().toLowerCase();
  if (s === "true" || s === "1" || s === "yes" || s === "on") return true;
  if (s === "false" || s === "0" || s === "no" || s === "off") return false;
  throw new Error("expected true or false");
}

export function nonEmptyText(maxLength: number): (raw: string) => string {
  return (raw) => {
    const s = raw.trim();
    if (s === "" || s.length > maxLength || /[\u0000-\u001f\u007f]/.test(s)) throw new Error(`expected 1-${maxLength} printable characters`);
    return s;
  };
}
