// Why a record cannot be replayed (a bad target, a body that was not recorded in full, a target
// that does not answer). `usage` separates the caller's mistakes from the target's failures.
export class ReplayError extends Error {
  /** True when the input was wrong (the CLI exits 2), false when the replay itself failed. */
  readonly usage: boolean;

  constructor(message: string, usage: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ReplayError";
    this.usage = usage;
  }
}
