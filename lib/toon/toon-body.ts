// The `toon(schema)` body extractor: a TOON request body (application/toon or text/toon, else
// 415), decoded (malformed: 400 with line and column), then validated like `json(schema)` (422).
// Decoding is bounded (nesting limited to the app's jsonDepth, size by the body limit) and, like
// JSON bodies, a `__proto__` key or a `constructor.prototype` pair is refused with 400.
import { isUtf8 } from "node:buffer";
import { ApiError, type BodyOptions, type Context, Extractor, type JsonSchema, type Static } from "../index.js";
import { compileSchema, defined, foreignSchema, MissingValueError, runStandard, runValidation, schemaProblem, type AnySchema } from "../plugin.js";
import { TOON_MEDIA_TYPE, TOON_MEDIA_TYPES, TOON_TEXT_MEDIA_TYPE } from "./negotiate.js";
import { decodeToon, ToonError } from "./codec/index.js";

export interface ToonBodyOptions extends BodyOptions {
  /** TOON strict mode (spec §14: counts, indentation, blank lines). Default true. */
  strict?: boolean;
}

/** The decoder's own ceiling on nesting; the app's jsonDepth is clamped into [1, this]. */
const TOON_MAX_BODY_DEPTH = 1000;

function isToonMediaType(essence: string): boolean {
  return essence === TOON_MEDIA_TYPE || essence === TOON_TEXT_MEDIA_TYPE;
}

/** Breadth-first, iterative (hostile depth cannot overflow the stack): the first forbidden key. */
function findForbiddenKey(root: unknown): string | undefined {
  const queue: unknown[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const item of node) queue.push(item);
      continue;
    }
    const obj = node as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(obj, "__proto__")) return "__proto__";
    if (Object.prototype.hasOwnProperty.call(obj, "constructor")) {
      const c = obj["constructor"];
      if (c !== null && typeof c === "object" && Object.prototype.hasOwnProperty.call(c, "prototype")) return "constructor.prototype";
    }
    for (const k of Object.keys(obj)) queue.push(obj[k]);
  }
  return undefined;
}

function decodeBody(buf: Buffer, ctx: Context, strict: boolean): unknown {
  if (buf.length === 0) throw new MissingValueError("Request body is empty; expected TOON");
  if (!isUtf8(buf)) throw ApiError.badRequest("Request body is not valid UTF-8");
  let text = buf.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // TOON decodes an empty document to {}; as a request body it is treated like an empty JSON body.
  if (text.trim() === "") throw ApiError.badRequest("Request body is empty; expected TOON");
  const maxDepth = Math.min(Math.max(Math.floor(ctx.runtime.jsonDepth) || 1, 1), TOON_MAX_BODY_DEPTH);
  let value: unknown;
  try {
    value = decodeToon(text, { strict, maxDepth });
  } catch (err) {
    if (err instanceof ToonError) throw ApiError.badRequest(`Invalid TOON: ${err.message}`, { cause: err });
    throw err;
  }
  // TOON has no escapes that could spell these keys another way, so a substring test is exact.
  if (text.includes("__proto__") || text.includes("constructor")) {
    const key = findForbiddenKey(value);
    if (key !== undefined) throw ApiError.badRequest(`Forbidden key "${key}" in TOON body`);
  }
  return value;
}

function readToon(ctx: Context, strict: boolean): Promise<unknown> {
  const got = ctx.contentType.essence;
  if (!isToonMediaType(got)) {
    throw ApiError.unsupportedMediaType(
      got === "" ? `Missing content-type; expected ${TOON_MEDIA_TYPE}` : `Unsupported content-type ${got}; expected ${TOON_MEDIA_TYPE} or ${TOON_TEXT_MEDIA_TYPE}`,
    );
  }
  return ctx.body().then((buf) => decodeBody(buf, ctx, strict));
}

/**
 * A TOON body (`application/toon` or `text/toon`, else 415), decoded (malformed: 400 naming the
 * line and column), validated by `schema` (failure: 422): a JSON Schema (`t`) or any Standard
 * Schema, as json() takes. Decoded objects have null prototypes.
 *
 * @example
 * ```ts
 * route.post("/todos", [toon(t.object({ title: t.string() }))], (todo) => created(todo));
 * ```
 * @see docs/features/toon.md
 */
export function toon(): Extractor<unknown, true>;
export function toon<const S extends AnySchema>(schema: S, options?: ToonBodyOptions): Extractor<Static<S>, true>;
export function toon(schema?: AnySchema, options: ToonBodyOptions = {}): Extractor<unknown, true> {
  const strict = options.strict !== false;
  const body = { contentTypes: TOON_MEDIA_TYPES, required: true, ...defined({ schema }) };
  if (schema === undefined) {
    return new Extractor("toon", (ctx) => readToon(ctx, strict), true, { body, errorStatuses: [400, 413, 415] });
  }
  const problem = schemaProblem(schema);
  if (problem !== undefined) {
    const refused = `the schema of extractor toon ${problem}`;
    const fail = (): never => {
      throw ApiError.internal("Internal server error", { detail: refused });
    };
    return new Extractor("toon", fail, true, { body, errorStatuses: [400, 413, 415, 422], refused });
  }
  const foreign = foreignSchema(schema);
  if (foreign !== null) {
    return new Extractor("toon", (ctx) => readToon(ctx, strict).then((v) => runStandard(foreign, v, "")), true, { body, errorStatuses: [400, 413, 415, 422] });
  }
  const compiled = compileSchema(schema as JsonSchema, { useDefaults: options.useDefaults === true });
  return new Extractor(
    "toon",
    (ctx) => readToon(ctx, strict).then((v) => runValidation(compiled, v, ctx, "")),
    true,
    { body, errorStatuses: [400, 413, 415, 422] },
  );
}
