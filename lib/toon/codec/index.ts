/**
 * TOON (Token-Oriented Object Notation) codec, targeting toon-spec: 4.0
 * (TOON spec v4, https://github.com/toon-format/spec). Media type text/toon.
 *
 * - encodeToon(value, { delimiter, indentSize }) → canonical TOON text.
 * - decodeToon(text, { strict, indentSize, maxDepth, maxLength }) → JSON value
 *   with null-prototype objects.
 * - every failure is a ToonError (with line/column when tied to the input).
 */
export { decodeToon } from "./decode.js";
export { encodeToon } from "./encode.js";
export { ToonError } from "./errors.js";
export {
  TOON_DEFAULT_INDENT_SIZE,
  TOON_DEFAULT_MAX_DEPTH,
  TOON_DEFAULT_MAX_LENGTH,
  type ToonDecodeOptions,
  type ToonDelimiter,
  type ToonEncodeOptions,
} from "./options.js";
export type { ToonJsonObject, ToonJsonPrimitive, ToonJsonValue } from "./values.js";
