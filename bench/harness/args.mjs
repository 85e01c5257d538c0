// Command-line values of the benchmark scripts.

/** `raw` as a number >= `min` (an integer when `integer`); throws an Error naming `--name` otherwise. */
export function numberOption(name, raw, { min, integer }) {
  const n = Number(raw);
  if (raw === undefined || raw === "" || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`--${name} takes ${integer ? "an integer" : "a number"} >= ${min} (got ${raw})`);
  }
  return n;
}
