/**
 * Encoder-side tabular detection of TOON spec v4 §9.3 (arrays of objects) and
 * §9.5 (keyed objects): column classification into uniform-primitive and
 * nested-uniform columns. Linear in the number of cells examined.
 */
import { isToonJsonObject, type ToonJsonObject, type ToonJsonValue } from "./values.js";

/** A header field: a leaf (`children` undefined) or a nested field group. */
export interface ToonShapeField {
  readonly key: string;
  readonly children: readonly ToonShapeField[] | undefined;
}

function isPrimitive(v: ToonJsonValue): boolean {
  return v === null || typeof v !== "object";
}

/** All objects have exactly the key set of `keys` (order may vary). */
function sameKeySet(objects: readonly ToonJsonObject[], keys: readonly string[]): boolean {
  for (let i = 1; i < objects.length; i++) {
    const obj = objects[i]!;
    if (Object.keys(obj).length !== keys.length) return false;
    for (const k of keys) if (!Object.hasOwn(obj, k)) return false;
  }
  return true;
}

/**
 * §9.3 column rules: every object non-empty with the same key set, every
 * column uniform-primitive or nested-uniform (recursively). Returns the field
 * tree in the first object's encounter order, or undefined when not tabular.
 */
export function detectToonUniformShape(objects: readonly ToonJsonObject[]): ToonShapeField[] | undefined {
  const first = objects[0];
  if (first === undefined) return undefined;
  const keys = Object.keys(first);
  if (keys.length === 0 || !sameKeySet(objects, keys)) return undefined;
  const fields: ToonShapeField[] = [];
  for (const key of keys) {
    if (isPrimitive(first[key]!)) {
      for (const obj of objects) if (!isPrimitive(obj[key]!)) return undefined;
      fields.push({ key, children: undefined });
      continue;
    }
    const column: ToonJsonObject[] = [];
    for (const obj of objects) {
      const v = obj[key]!;
      if (!isToonJsonObject(v)) return undefined;
      column.push(v);
    }
    const children = detectToonUniformShape(column);
    if (children === undefined) return undefined;
    fields.push({ key, children });
  }
  return fields;
}

/** §9.3 tabular detection for an array (every element a non-empty object of one shape). */
export function detectToonTabularArray(arr: readonly ToonJsonValue[]): ToonShapeField[] | undefined {
  const objects: ToonJsonObject[] = [];
  for (const v of arr) {
    if (!isToonJsonObject(v)) return undefined;
    objects.push(v);
  }
  return detectToonUniformShape(objects);
}

/** §9.5 keyed detection: at least two entries whose values are uniform non-empty objects. */
export function detectToonKeyedObject(obj: ToonJsonObject, keys: readonly string[]): ToonShapeField[] | undefined {
  if (keys.length < 2) return undefined;
  const values: ToonJsonObject[] = [];
  for (const k of keys) {
    const v = obj[k]!;
    if (!isToonJsonObject(v)) return undefined;
    values.push(v);
  }
  return detectToonUniformShape(values);
}
