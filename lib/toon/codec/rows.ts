/**
 * Tabular row and keyed entry-row materialisation (TOON spec v4 §9.3, §9.5):
 * cells map to leaf fields in depth-first pre-order; nested field groups
 * build nested objects. Cells are primitives only, so this never recurses into
 * the structural decoder.
 */
import { ToonError } from "./errors.js";
import type { ToonFieldNode, ToonHeader } from "./header.js";
import { parseToonPrimitive, splitToonDelimited } from "./scan.js";
import { createToonObject, type ToonJsonObject } from "./values.js";

/** Splits a row / entry-row cell sequence; an empty sequence has zero cells (§9.5 bare `key:`). */
export function splitToonRowCells(text: string, header: ToonHeader): string[] {
  if (text.length === 0) return [];
  return splitToonDelimited(text, header.delimiter.charCodeAt(0));
}

/**
 * Builds one row object. Strict mode requires cells.length === leafCount
 * (§14.1); non-strict fills missing leaves with null and ignores extra cells.
 * Duplicate field names resolve last-write-wins (non-strict only; strict
 * rejects them at the header).
 */
export function buildToonRow(header: ToonHeader, cells: readonly string[], strict: boolean, lineNo: number): ToonJsonObject {
  if (cells.length !== header.leafCount && strict) {
    throw new ToonError(`row has ${cells.length} cells but the header declares ${header.leafCount} fields`, lineNo);
  }
  const row = createToonObject();
  fillFields(row, header.fields ?? [], cells, 0, strict, lineNo);
  return row;
}

function fillFields(
  target: ToonJsonObject, fields: readonly ToonFieldNode[], cells: readonly string[], index: number,
  strict: boolean, lineNo: number,
): number {
  for (const field of fields) {
    if (field.children === undefined) {
      const cell = cells[index++];
      target[field.name] = cell === undefined ? null : parseToonPrimitive(cell, strict, lineNo);
    } else {
      const child = createToonObject();
      index = fillFields(child, field.children, cells, index, strict, lineNo);
      target[field.name] = child;
    }
  }
  return index;
}
