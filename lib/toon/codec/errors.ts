/**
 * The single error type of the TOON codec. Every failure of `encodeToon` /
 * `decodeToon` (syntax, strict-mode checks of TOON spec v4 §14, limits,
 * unsupported host values) is a ToonError; `line` / `column` are 1-based
 * positions in the decoded text when the error is tied to one.
 */
export class ToonError extends Error {
  override readonly name = "ToonError";
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, line?: number, column?: number) {
    super(formatToonErrorMessage(message, line, column));
    this.line = line;
    this.column = column;
  }
}

function formatToonErrorMessage(message: string, line: number | undefined, column: number | undefined): string {
  if (line === undefined) return message;
  if (column === undefined) return `${message} (line ${line})`;
  return `${message} (line ${line}, column ${column})`;
}
