// Strict JSON decoding for JOSE headers and JWT payloads: fatal UTF-8, a plain object at the
// top level, no `__proto__`/`constructor`/`prototype` member names anywhere, and null-prototype
// objects throughout, so nothing parsed from a token can reach Object.prototype.
import { JwtError } from "./jwt-error.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function isForbiddenName(key: string): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype";
}

/**
 * JSON.parse's result with every object copied into a null-prototype one and every member name
 * checked, in the order a reviver would see them (an object's members before the object, in key
 * order), so the first forbidden name found is the one a reviver would report. JSON.parse makes
 * `__proto__` an own data property, never a prototype, so the plain parse is safe to walk; this
 * costs a fraction of `JSON.parse(text, reviver)`, which calls back into JavaScript per value.
 */
function harden(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = harden(value[i]);
    return value;
  }
  const source = value as Record<string, unknown>;
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const member = harden(source[key]);
    if (isForbiddenName(key)) throw new JwtError("malformed", `member name "${key}" is not allowed`);
    out[key] = member;
  }
  return out;
}

/** Decode UTF-8 JSON that must be an object; `what` names it in error messages. */
export function parseJoseObject(bytes: Uint8Array, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new JwtError("malformed", `${what} is not valid UTF-8`);
  }
  let value: unknown;
  try {
    value = harden(JSON.parse(text));
  } catch (error) {
    if (error instanceof JwtError) throw new JwtError("malformed", `${what}: ${error.message}`);
    throw new JwtError("malformed", `${what} is not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JwtError("malformed", `${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
