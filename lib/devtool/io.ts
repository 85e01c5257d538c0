// Where a command writes: the process's streams in `keel`, strings in a test.
export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The working directory relative paths are read against. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What a command ends with: its exit code (0 fine, 1 a problem found, 2 a usage mistake). */
export type ExitCode = 0 | 1 | 2;
