// `audit verify <dir>`: one line saying whether the log in <dir> is intact.
// Exit codes: 0 intact, 1 tampered (the line names file, line, seq and reason), 2 usage errors
// (unknown subcommand, missing or extra argument, a directory that does not exist or cannot be
// read). `argv` is what follows the program name, with or without a leading "audit".
// `--anchor <seq>:<hash>` checks a head kept elsewhere (see verify.ts).
import { verifyAuditLog, type AuditVerifyOptions } from "./verify.js";
import { isHashText } from "./record.js";

export interface AuditCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

export const AUDIT_USAGE = "usage: audit verify [--anchor <seq>:<sha256>] <dir>\n";

/** Parse `<seq>:<64 hex>`, or null. */
function parseAnchor(text: string): { seq: number; hash: string } | null {
  const colon = text.indexOf(":");
  if (colon < 1) return null;
  const digits = text.slice(0, colon);
  const hash = text.slice(colon + 1).toLowerCase();
  if (!/^[0-9]{1,15}$/.test(digits) || !isHashText(hash)) return null;
  return { seq: Number(digits), hash };
}

export async function runAuditCommand(argv: readonly string[], io: AuditCommandIo = {}): Promise<number> {
  const out = io.stdout ?? ((s: string) => void process.stdout.write(s));
  const err = io.stderr ?? ((s: string) => void process.stderr.write(s));
  const args = argv[0] === "audit" ? argv.slice(1) : argv.slice();
  const usage = (problem: string): number => {
    err(`audit: ${problem}\n${AUDIT_USAGE}`);
    return 2;
  };
  if (args[0] === "--help" || args[0] === "-h" || args[0] === "help") {
    out(AUDIT_USAGE);
    return 0;
  }
  if (args[0] !== "verify") return usage(args[0] === undefined ? "missing subcommand" : `unknown subcommand ${JSON.stringify(args[0])}`);
  const options: AuditVerifyOptions = {};
  const positional: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--anchor") {
      const anchor = parseAnchor(args[++i] ?? "");
      if (anchor === null) return usage("--anchor takes <seq>:<64 hex digits>");
      options.anchor = anchor;
    } else if (arg.startsWith("-") && arg !== "-") {
      return usage(`unknown option ${JSON.stringify(arg)}`);
    } else {
      positional.push(arg);
    }
  }
  if (positional.length !== 1) return usage(positional.length === 0 ? "missing <dir>" : "verify takes one directory");
  const dir = positional[0]!;
  let result;
  try {
    result = await verifyAuditLog(dir, options);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return usage(code === "ENOENT" ? `no such directory: ${dir}` : `cannot read ${dir}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (result.ok) {
    const from = result.firstSeq > 1 ? ` from seq ${result.firstSeq} (older ones deleted by retention)` : "";
    out(`audit log intact: ${result.records} records${from} in ${result.files} files, head ${result.head.seq}:${result.head.hash}\n`);
    return 0;
  }
  out(`audit log TAMPERED: ${result.file} line ${result.line}${result.seq === null ? "" : ` (seq ${result.seq})`}: ${result.reason}\n`);
  return 1;
}
