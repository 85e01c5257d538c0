import { ToonError } from "./errors.js";

/** TOON spec v4 §1.5 / §11: the three supported delimiters. */
export type ToonDelimiter = "," | "\t" | "|";

export interface ToonEncodeOptions {
  /** Document delimiter (§11.1); also used for every array header the encoder writes. Default ",". */
  delimiter?: ToonDelimiter;
  /** Spaces per indentation level (§12). Default 2. */
  indentSize?: number;
}

export interface ToonDecodeOptions {
  /** Strict mode (§14). Default true. */
  strict?: boolean;
  /** Spaces per indentation level (§12). Default 2. */
  indentSize?: number;
  /** Maximum container nesting (objects, arrays, nested field groups). Default 64. */
  maxDepth?: number;
  /** Maximum input length in UTF-16 code units. Default 16 MiB. */
  maxLength?: number;
}

export interface ToonResolvedEncodeOptions {
  readonly delimiter: ToonDelimiter;
  readonly indentSize: number;
}

export interface ToonResolvedDecodeOptions {
  readonly strict: boolean;
  readonly indentSize: number;
  readonly maxDepth: number;
  readonly maxLength: number;
}

export const TOON_DEFAULT_INDENT_SIZE = 2;
export const TOON_DEFAULT_MAX_DEPTH = 64;
export const TOON_DEFAULT_MAX_LENGTH = 16 * 1024 * 1024;
/** Hard ceilings so a misconfiguration cannot turn into a stack overflow. */
const TOON_MAX_INDENT_SIZE = 16;
const TOON_MAX_DEPTH_CEILING = 1000;

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ToonError(`option ${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  }
  return value;
}

export function resolveToonEncodeOptions(options: ToonEncodeOptions | undefined): ToonResolvedEncodeOptions {
  const delimiter = options?.delimiter ?? ",";
  if (delimiter !== "," && delimiter !== "\t" && delimiter !== "|") {
    throw new ToonError(`option delimiter must be ",", "\\t" or "|", got ${JSON.stringify(delimiter)}`);
  }
  const indentSize = checkInteger("indentSize", options?.indentSize ?? TOON_DEFAULT_INDENT_SIZE, 1, TOON_MAX_INDENT_SIZE);
  return { delimiter, indentSize };
}

export function resolveToonDecodeOptions(options: ToonDecodeOptions | undefined): ToonResolvedDecodeOptions {
  const strict = options?.strict ?? true;
  if (typeof strict !== "boolean") throw new ToonError("option strict must be a boolean");
  return {
    strict,
    indentSize: checkInteger("indentSize", options?.indentSize ?? TOON_DEFAULT_INDENT_SIZE, 1, TOON_MAX_INDENT_SIZE),
    maxDepth: checkInteger("maxDepth", options?.maxDepth ?? TOON_DEFAULT_MAX_DEPTH, 1, TOON_MAX_DEPTH_CEILING),
    maxLength: checkInteger("maxLength", options?.maxLength ?? TOON_DEFAULT_MAX_LENGTH, 0, Number.MAX_SAFE_INTEGER),
  };
}
