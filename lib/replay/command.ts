// The `replay` subcommand of a service's CLI:
//   replay list [--route PATTERN] [--status N] [--limit N]
//   replay <id> --target http://host:port [--ignore-header NAME]... [--ignore-field NAME]... [--header "Name: value"]...
// Exit codes: 0 the replayed answer matches the recording (or a list was printed), 1 it differs,
// 2 a usage error (bad arguments, unknown id, a target that is not an origin, a record whose
// request body was not kept in full), 3 the replay failed (no connection, no answer in time).
import { formatDiff } from "./format-diff.js";
import { diffReplay } from "./diff.js";
import { replayRecord } from "./replay-request.js";
import { ReplayError } from "./replay-error.js";
import type { ReplayListFilter } from "./record.js";
import { MAX_LIST_LIMIT, type ReplayStore } from "./store.js";
import { defined } from "../plugin.js";

export interface ReplayCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface ReplayCommandOptions {
  store: ReplayStore;
  /** Header names the diff ignores, besides REPLAY_VOLATILE_HEADERS (the app's volatile ones). */
  ignoreHeaders?: readonly string[];
  /** JSON property names the diff ignores at any depth, besides REPLAY_VOLATILE_FIELDS. */
  ignoreFields?: readonly string[];
  /** Timeout of one replay (default 10 s). */
  timeoutMs?: number;
}

export const REPLAY_USAGE =
  "usage: replay list [--route PATTERN] [--status N] [--limit N]\n" +
  "       replay <id> --target http://host:port [--ignore-header NAME]... [--ignore-field NAME]... [--header 'Name: value']...\n" +
  "exit: 0 same answer, 1 different answer, 2 usage error, 3 the replay failed\n";

class UsageError extends Error {}

interface ParsedFlags {
  positional: string[];
  flags: Map<string, string[]>;
}

const KNOWN_FLAGS = new Set(["route", "status", "limit", "target", "ignore-header", "ignore-field", "header"]);

function parseFlags(args: readonly string[]): ParsedFlags {
  const positional: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!KNOWN_FLAGS.has(name)) throw new UsageError(`unknown option --${name}`);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positional, flags };
}

function single(flags: Map<string, string[]>, name: string): string | undefined {
  const values = flags.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) throw new UsageError(`--${name} given more than once`);
  return values[0];
}

function integerFlag(flags: Map<string, string[]>, name: string, min: number, max: number): number | undefined {
  const text = single(flags, name);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return n;
}

async function listCommand(parsed: ParsedFlags, io: ReplayCommandIo, store: ReplayStore): Promise<number> {
  if (parsed.positional.length > 1) throw new UsageError(`unexpected argument ${parsed.positional[1]}`);
  for (const name of parsed.flags.keys()) if (name !== "route" && name !== "status" && name !== "limit") throw new UsageError(`--${name} does not apply to list`);
  const filter: ReplayListFilter = {};
  const route = single(parsed.flags, "route");
  const status = integerFlag(parsed.flags, "status", 100, 599);
  const limit = integerFlag(parsed.flags, "limit", 1, MAX_LIST_LIMIT);
  if (route !== undefined) filter.route = route;
  if (status !== undefined) filter.status = status;
  if (limit !== undefined) filter.limit = limit;
  const records = await store.list(filter);
  if (records.length === 0) io.stdout("no recordings\n");
  for (const r of records) {
    const query = r.request.query === "" ? "" : "?" + r.request.query;
    io.stdout(`${r.id}  ${r.recorded_at}  ${r.response.status}  ${r.request.method} ${r.request.path}${query}  (${r.meta.route}, ${r.meta.duration_ms} ms)\n`);
  }
  return 0;
}

function headerFlags(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const v of values) {
    const colon = v.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header must look like "Name: value", got ${JSON.stringify(v)}`);
    out[v.slice(0, colon).trim().toLowerCase()] = v.slice(colon + 1).trim();
  }
  return out;
}

async function replayCommand(parsed: ParsedFlags, io: ReplayCommandIo, options: ReplayCommandOptions): Promise<number> {
  if (parsed.positional.length > 1) throw new UsageError(`unexpected argument ${parsed.positional[1]}`);
  const id = parsed.positional[0]!;
  const target = single(parsed.flags, "target");
  if (target === undefined) throw new UsageError("--target URL is required");
  for (const name of ["route", "status", "limit"]) if (parsed.flags.has(name)) throw new UsageError(`--${name} applies to list only`);
  const record = await options.store.get(id);
  if (record === null) throw new UsageError(`no recording with id ${id}`);
  const replayed = await replayRecord(record, {
    target,
    headers: headerFlags(parsed.flags.get("header") ?? []),
    ...defined({ timeoutMs: options.timeoutMs }),
  });
  const diff = diffReplay(record, replayed, {
    ignoreHeaders: [...(options.ignoreHeaders ?? []), ...(parsed.flags.get("ignore-header") ?? [])],
    ignoreFields: [...(options.ignoreFields ?? []), ...(parsed.flags.get("ignore-field") ?? [])],
  });
  const query = record.request.query === "" ? "" : "?" + record.request.query;
  io.stdout(`replay ${record.id}: ${record.request.method} ${record.request.path}${query} -> ${target}\n`);
  io.stdout(formatDiff(diff));
  return diff.equal ? 0 : 1;
}

/** Run `replay ...` (argv may start with "replay" or not); resolves to the exit code. */
export async function runReplayCommand(argv: readonly string[], io: ReplayCommandIo, options: ReplayCommandOptions): Promise<number> {
  const args = argv[0] === "replay" ? argv.slice(1) : argv;
  if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
    if (args.length === 0) {
      io.stderr(REPLAY_USAGE);
      return 2;
    }
    io.stdout(REPLAY_USAGE);
    return 0;
  }
  try {
    const parsed = parseFlags(args);
    if (parsed.positional.length === 0) throw new UsageError("a recording id or `list` is required");
    return parsed.positional[0] === "list" ? await listCommand(parsed, io, options.store) : await replayCommand(parsed, io, options);
  } catch (err) {
    if (err instanceof UsageError || (err instanceof ReplayError && err.usage)) {
      io.stderr(`replay: ${err.message}\n${err instanceof UsageError ? REPLAY_USAGE : ""}`);
      return 2;
    }
    if (err instanceof ReplayError) {
      io.stderr(`replay: ${err.message}\n`);
      return 3;
    }
    throw err;
  }
}
