/**
 * Host-type normalization before encoding (TOON spec v4 §3, Appendix F.2).
 * Documented keel mapping, chosen to match JSON.stringify so a value encodes
 * to the same data model as JSON:
 * - `toJSON()` hooks are honoured first (so Date → ISO string);
 * - NaN / ±Infinity → null; -0 is kept here and printed as 0 (§2);
 * - BigInt → number when within ±(2^53-1), else its decimal string;
 * - boxed String/Number/Boolean → their primitive; Map → object (String(key)); Set → array;
 * - undefined, functions and symbols: omitted as object properties, null in
 *   arrays and at the root;
 * - other objects → own enumerable string keys in Object.keys order.
 * Circular references and nesting deeper than 1000 levels throw ToonError.
 * Plain JSON data is returned as is (copy-on-write: containers are copied only
 * when something inside them changes).
 */
import { ToonError } from "./errors.js";
import { createToonObject, type ToonJsonObject, type ToonJsonValue } from "./values.js";

const TOON_ENCODE_MAX_DEPTH = 1000;
/** Marks a value that is dropped from objects (undefined, function, symbol). */
const OMIT: unique symbol = Symbol("omit");
type Normalized = ToonJsonValue | typeof OMIT;

export function normalizeToonValue(value: unknown): ToonJsonValue {
  const out = normalize(value, "", new Set<object>(), 0);
  return out === OMIT ? null : out;
}

function normalize(value: unknown, key: string, ancestors: Set<object>, depth: number): Normalized {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      return value >= -9007199254740991n && value <= 9007199254740991n ? Number(value) : value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return OMIT;
    default:
      break;
  }
  if (value === null) return null;
  let obj = value as object;
  const hook = (obj as { toJSON?: unknown }).toJSON;
  if (typeof hook === "function") {
    const replaced: unknown = hook.call(obj, key);
    if (typeof replaced !== "object" || replaced === null) return normalize(replaced, key, ancestors, depth);
    obj = replaced;
  }
  if (obj instanceof String || obj instanceof Number || obj instanceof Boolean) {
    return normalize(obj.valueOf(), key, ancestors, depth);
  }
  if (depth >= TOON_ENCODE_MAX_DEPTH) throw new ToonError(`value nesting exceeds ${TOON_ENCODE_MAX_DEPTH} levels`);
  if (ancestors.has(obj)) throw new ToonError("cannot encode a circular structure");
  ancestors.add(obj);
  let result: ToonJsonValue;
  if (Array.isArray(obj)) result = normalizeArray(obj as unknown[], ancestors, depth);
  else if (obj instanceof Map) result = normalizeMap(obj, ancestors, depth);
  else if (obj instanceof Set) result = normalizeArray(Array.from(obj), ancestors, depth);
  else result = normalizeObject(obj as Record<string, unknown>, ancestors, depth);
  ancestors.delete(obj);
  return result;
}

function normalizeArray(arr: unknown[], ancestors: Set<object>, depth: number): ToonJsonValue[] {
  let out: ToonJsonValue[] | undefined;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    const nv = normalize(v, String(i), ancestors, depth + 1);
    if (out === undefined) {
      if (nv === v) continue;
      out = arr.slice(0, i) as ToonJsonValue[];
    }
    out.push(nv === OMIT ? null : nv);
  }
  return out ?? (arr as ToonJsonValue[]);
}

function normalizeObject(obj: Record<string, unknown>, ancestors: Set<object>, depth: number): ToonJsonObject {
  const keys = Object.keys(obj);
  let out: ToonJsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = obj[k];
    const nv = normalize(v, k, ancestors, depth + 1);
    if (out === undefined) {
      if (nv === v) continue;
      out = createToonObject();
      for (let j = 0; j < i; j++) out[keys[j]!] = obj[keys[j]!] as ToonJsonValue;
    }
    if (nv !== OMIT) out[k] = nv;
  }
  return out ?? (obj as ToonJsonObject);
}

function normalizeMap(map: Map<unknown, unknown>, ancestors: Set<object>, depth: number): ToonJsonObject {
  const out = createToonObject();
  for (const [k, v] of map) {
    const key = String(k);
    const nv = normalize(v, key, ancestors, depth + 1);
    if (nv !== OMIT) out[key] = nv;
  }
  return out;
}
