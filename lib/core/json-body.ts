// Safe JSON body parsing: malformed JSON, prototype-poisoning keys and absurd nesting are 400s.
import { ApiError } from "./errors.js";

export const DEFAULT_JSON_DEPTH = 64;
/**
 * Values allowed in one JSON body (objects, arrays and their members). JSON.parse of 350,000
 * empty objects (1 MiB of `[{},{},...]`) blocks the event loop for 40-120 ms; at this cap the
 * worst body of the default 1 MiB limit parses in well under 50 ms. Raise it per route with
 * `json(schema, { maxElements })` where large arrays are expected.
 */
export const DEFAULT_JSON_ELEMENTS = 50_000;

// Matches a JSON key spelled `__proto__` / `constructor`, including \u escapes of any letter
// (JSON.parse would decode them). Linear: alternations of fixed strings, no nested quantifiers.
function keyPattern(name: string): RegExp {
  let src = '"';
  for (const ch of name) {
    const hex = ch.charCodeAt(0).toString(16).padStart(4, "0");
    src += `(?:${ch}|\\\\u${hex.slice(0, 3)}[${hex[3]!.toLowerCase()}${hex[3]!.toUpperCase()}])`;
  }
  return new RegExp(src + '"\\s*:');
}
const PROTO_KEY = keyPattern("__proto__");
const CONSTRUCTOR_KEY = keyPattern("constructor");

/**
 * One pass over the JSON text, outside strings: the nesting depth and the number of values
 * (each `{`/`[` and each `,`). Stops at the first limit crossed, before JSON.parse spends time
 * and memory on a hostile body. Returns the refusal, or undefined.
 */
function exceedsLimits(text: string, maxDepth: number, maxElements: number): string | undefined {
  let depth = 0;
  let elements = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped char
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 44) {
      if (++elements > maxElements) return `JSON body has more than ${maxElements} values`;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return `JSON nesting exceeds the limit of ${maxDepth} levels`;
      if (++elements > maxElements) return `JSON body has more than ${maxElements} values`;
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}

/** Breadth-first search for a poisoned key; iterative so hostile depth cannot overflow the stack. */
function findPoison(root: unknown, checkProto: boolean, checkConstructor: boolean): string | undefined {
  const queue: unknown[] = [root];
  for (let qi = 0; qi < queue.length; qi++) {
    const node = queue[qi];
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) queue.push(node[i]);
      continue;
    }
    const obj = node as Record<string, unknown>;
    if (checkProto && Object.prototype.hasOwnProperty.call(obj, "__proto__")) return "__proto__";
    if (checkConstructor && Object.prototype.hasOwnProperty.call(obj, "constructor")) {
      const c = obj["constructor"];
      if (c !== null && typeof c === "object" && Object.prototype.hasOwnProperty.call(c, "prototype")) {
        return "constructor.prototype";
      }
    }
    for (const k in obj) queue.push(obj[k]);
  }
  return undefined;
}

export function parseJsonText(text: string, maxDepth = DEFAULT_JSON_DEPTH, maxElements = DEFAULT_JSON_ELEMENTS): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === "") throw ApiError.badRequest("Request body is empty; expected JSON");
  if (text.length > maxDepth || text.length > maxElements) {
    const refusal = exceedsLimits(text, maxDepth, maxElements);
    if (refusal !== undefined) throw ApiError.badRequest(refusal);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw ApiError.badRequest(`Invalid JSON: ${(err as Error).message}`);
  }
  const proto = PROTO_KEY.test(text);
  const ctor = CONSTRUCTOR_KEY.test(text);
  if (proto || ctor) {
    const key = findPoison(value, proto, ctor);
    if (key !== undefined) throw ApiError.badRequest(`Forbidden key "${key}" in JSON body`);
  }
  return value;
}
