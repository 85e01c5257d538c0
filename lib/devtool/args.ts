// The devtool's argument reader: positionals, `--name value`, `--name=value`, and the boolean
// flags a command names. Each command states its flags, so a typo is a usage error (exit 2)
// rather than an ignored word.

/** A usage mistake: the command prints it with the usage and exits 2. */
export class UsageError extends Error {}

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly values: ReadonlyMap<string, string>;
  readonly switches: ReadonlySet<string>;
}

export function parseArgs(argv: readonly string[], valued: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const values = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (booleans.includes(name) && eq === -1) switches.add(name);
    else if (valued.includes(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === "") throw new UsageError(`--${name} needs a value`);
      values.set(name, value);
    } else throw new UsageError(`unknown option ${arg}`);
  }
  return { positionals, values, switches };
}
