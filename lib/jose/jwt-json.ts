// Strict JSON decoding for JOSE headers and JWT payloads: fatal UTF-8, a plain object at the
// top level, no `__proto__`/`constructor`/`prototype` member names anywhere, and null-prototype
// objects throughout, so nothing parsed from a token can reach Object.prototype.
import { JwtError } from "./jwt-error.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function reviver(this: unknown, key: string, value: unknown): unknown {
  if (key === "__proto__" || key === "constructor" || key === "prototype") {
    throw new JwtError("malformed", `member name "${key}" is not allowed`);
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return Object.assign(Object.create(null) as Record<string, unknown>, value);
  }
  return value;
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
    value = JSON.parse(text, reviver);
  } catch (error) {
    if (error instanceof JwtError) throw new JwtError("malformed", `${what}: ${error.message}`);
    throw new JwtError("malformed", `${what} is not valid JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JwtError("malformed", `${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
