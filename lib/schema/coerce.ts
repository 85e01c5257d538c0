// Coercion of string inputs (query, path, header values) to a schema's scalar types, decided once
// per schema at compile time. Strict forms only: "42" -> 42, "-1.5" -> -1.5, "true"/"false",
// "null"/"" -> null; anything else stays a string and fails the type rule with a clear message.
// An array schema wraps a single value: "a" -> ["a"], then coerces the items.
import type { JsonSchema } from "./types.js";

export type Coercer = (value: unknown) => unknown;

const INTEGER_RE = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER_RE = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function toInteger(s: string): unknown {
  if (s.length > 20 || !INTEGER_RE.test(s)) return s;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : s;
}

function toNumber(s: string): unknown {
  if (s.length > 64 || !NUMBER_RE.test(s)) return s;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

function toBoolean(s: string): unknown {
  return s === "true" ? true : s === "false" ? false : s;
}

function toNull(s: string): unknown {
  return s === "null" || s === "" ? null : s;
}

const SCALAR: Record<string, (s: string) => unknown> = { integer: toInteger, number: toNumber, boolean: toBoolean, null: toNull };

/** The types a schema admits, looking through `anyOf`/`oneOf` (how `t.nullable`/`t.union` are built). */
function typesOf(schema: JsonSchema | undefined, depth = 0): string[] {
  if (typeof schema !== "object" || schema === null || depth > 4) return [];
  const type = schema["type"];
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((x): x is string => typeof x === "string");
  const out: string[] = [];
  for (const key of ["anyOf", "oneOf"]) {
    const list = schema[key];
    if (Array.isArray(list)) for (const sub of list) out.push(...typesOf(sub as JsonSchema, depth + 1));
  }
  return out;
}

/** A coercer for values of this schema, or null when there is nothing to coerce. */
export function coercerFor(schema: unknown): Coercer | null {
  const types = typesOf(schema as JsonSchema);
  if (types.length === 0) return null;
  if (types.includes("array")) {
    const items = typeof schema === "object" && schema !== null ? (schema as Record<string, unknown>)["items"] : undefined;
    const item = coercerFor(items);
    return (value) => {
      const list = Array.isArray(value) ? value : typeof value === "string" ? [value] : null;
      if (list === null) return value;
      if (item !== null) for (let i = 0; i < list.length; i++) list[i] = item(list[i]);
      return list;
    };
  }
  if (types.includes("string")) return null; // a string is already right
  const steps = types.map((t) => SCALAR[t]).filter((f): f is (s: string) => unknown => f !== undefined);
  if (steps.length === 0) return null;
  return (value) => {
    if (typeof value !== "string") return value;
    for (const step of steps) {
      const next = step(value);
      if (next !== value) return next;
    }
    return value;
  };
}

/** Writes an own property without ever touching a prototype (`__proto__` is defined, not set). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
