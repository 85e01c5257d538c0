/**
 * The JSON data model as the TOON codec sees it (spec v4 §2). Decoded objects
 * are null-prototype objects so that `__proto__`, `constructor` and
 * `prototype` are ordinary own keys (§15) and nothing inherited leaks in.
 */
export type ToonJsonPrimitive = string | number | boolean | null;
export type ToonJsonValue = ToonJsonPrimitive | ToonJsonValue[] | ToonJsonObject;
export interface ToonJsonObject {
  [key: string]: ToonJsonValue;
}

export function createToonObject(): ToonJsonObject {
  return Object.create(null) as ToonJsonObject;
}

export function isToonJsonObject(value: ToonJsonValue): value is ToonJsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
