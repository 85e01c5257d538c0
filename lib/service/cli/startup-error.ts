// What a person reads when a service cannot start: one plain line on stderr that names the
// problem and the fix, and the exit code that says what kind of failure it was (2: the
// configuration is wrong and a restart will not help; 1: anything else). The JSON fatal line
// stays on stdout for log shippers.

/** Thrown by an app's setup for a configuration problem (a missing secret...): exit 2, the message shown as is. */
export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigurationError";
  }
}

export interface StartupFailure {
  /** One line for a person, without the program prefix. */
  readonly line: string;
  readonly exitCode: 1 | 2;
}

/** Describe an error from building the app or binding its port. */
export function describeStartupError(err: unknown, where: { host: string; port: number }): StartupFailure {
  if (err instanceof ConfigurationError) return { line: err.message, exitCode: 2 };
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const { host, port } = where;
  switch (code) {
    case "EADDRINUSE":
      return { line: `port ${port} is in use on ${host}: pass --port or PORT (0 picks a free port)`, exitCode: 2 };
    case "EACCES":
      return { line: `port ${port} on ${host} needs privileges: use a port above 1023 (--port or PORT)`, exitCode: 2 };
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return { line: `host ${host} is not an address of this machine: pass --host or HOST (127.0.0.1, 0.0.0.0 or ::)`, exitCode: 2 };
    default:
      break;
  }
  if (err instanceof RangeError && err.message.startsWith("keel: listen option")) {
    return { line: err.message.slice("keel: ".length), exitCode: 2 };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { line: `failed to start: ${message}`, exitCode: 1 };
}
