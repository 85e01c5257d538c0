// A copy of a schema fit for publishing (the OpenAPI document): keel's private keywords removed.
// `x-keel-async` names database tables and columns, which clients have no business seeing.
// `x-message`/`x-messages` stay: they are plain `x-` extensions and tell clients the error texts.
import { ASYNC_KEYWORD, type JsonSchema } from "../plugin.js";

const PRIVATE_KEYWORDS = new Set([ASYNC_KEYWORD]);

/** Deep copy without private keywords. Symbol markers (`t.named`, `t.optional`) are kept. */
export function publicSchema<S extends JsonSchema>(schema: S): S {
  return copy(schema, 0) as S;
}

function copy(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > 256) return value;
  if (Array.isArray(value)) return value.map((v) => copy(v, depth + 1));
  const out: Record<string | symbol, unknown> = {};
  for (const key of Object.keys(value)) {
    if (PRIVATE_KEYWORDS.has(key)) continue;
    const v = copy((value as Record<string, unknown>)[key], depth + 1);
    if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  for (const sym of Object.getOwnPropertySymbols(value)) out[sym] = (value as Record<symbol, unknown>)[sym];
  return out;
}
