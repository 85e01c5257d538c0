// Body-consuming extractors. Each must be a handler's last argument; the body is read once.
import { isUtf8 } from "node:buffer";
import type { Context } from "../core/context.js";
import { isJsonMediaType } from "../util/json-media-type.js";
import { ApiError } from "../core/errors.js";
import { parseJsonText } from "../core/json-body.js";
import { parseQueryString, type ParamMap } from "../core/query.js";
import type { AnySchema, Static, StaticInput } from "../schema/index.js";
import { Extractor, MissingValueError } from "../core/extractor.js";
import { refusedSchema, runStandard, runValidation, schemaCheck } from "./validate.js";
import { defined } from "../util/defined.js";

export interface BodyOptions {
  /** Apply schema `default`s to missing properties. */
  useDefaults?: boolean;
}

export interface JsonBodyOptions extends BodyOptions {
  /** Most values (objects, arrays, members) in the body; default the app's `jsonElements` (50 000). */
  maxElements?: number;
}

function requireMedia(ctx: Context, ok: boolean, expected: string): void {
  if (ok) return;
  const got = ctx.contentType.essence;
  throw ApiError.unsupportedMediaType(
    got === "" ? `Missing content-type; expected ${expected}` : `Unsupported content-type ${got}; expected ${expected}`,
  );
}

function decodeUtf8(buf: Buffer): string {
  if (!isUtf8(buf)) throw ApiError.badRequest("Request body is not valid UTF-8");
  return buf.toString("utf8");
}

/** The parsed JSON body, then `after(value)` in the same promise step (one hop, not two). */
function readJson(ctx: Context, maxElements: number): Promise<unknown>;
function readJson<T>(ctx: Context, maxElements: number, after: (value: unknown) => T | Promise<T>): Promise<T>;
function readJson(ctx: Context, maxElements: number, after?: (value: unknown) => unknown): Promise<unknown> {
  requireMedia(ctx, isJsonMediaType(ctx.contentType.essence), "application/json");
  // JSON on the wire is UTF-8 (RFC 8259 §8.1): a body declared otherwise would be read as
  // something else than its sender meant, so it is refused rather than guessed.
  const charset = ctx.contentType.charset;
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    throw ApiError.unsupportedMediaType(`Unsupported charset ${JSON.stringify(charset)}; JSON must be UTF-8`);
  }
  return ctx.body().then((buf) => {
    if (buf.length === 0) throw new MissingValueError("Request body is empty; expected JSON");
    const value = parseJsonText(decodeUtf8(buf), ctx.runtime.jsonDepth, maxElements < 0 ? ctx.runtime.jsonElements : maxElements);
    return after === undefined ? value : after(value);
  });
}

const readJsonWithAppLimit = (ctx: Context): Promise<unknown> => readJson(ctx, -1);

/**
 * A JSON body (`application/json` or `application/*+json`, else 415), validated by `schema`
 * (failure: 422): a JSON Schema (`t`), or any Standard Schema (zod, valibot, arktype, ...), whose
 * validated value is what the handler gets.
 */
export function json(): Extractor<unknown, true, { body: { type: "json"; value: unknown } }>;
export function json<const S extends AnySchema>(schema: S, options?: JsonBodyOptions): Extractor<Static<S>, true, { body: { type: "json"; value: StaticInput<S> } }>;
export function json(schema?: AnySchema, options: JsonBodyOptions = {}): Extractor<unknown, true, any> {
  const body = { contentTypes: ["application/json"], required: true, ...defined({ schema }) };
  const maxElements = options.maxElements ?? -1;
  if (maxElements !== -1 && (!Number.isSafeInteger(maxElements) || maxElements < 1)) {
    throw new TypeError(`json(): maxElements must be a positive integer, got ${String(maxElements)}`);
  }
  if (schema === undefined) return new Extractor("json", readJsonWithAppLimit, true, { body, errorStatuses: [400, 413, 415] });
  const { compiled, foreign, refused } = schemaCheck("json", schema, { useDefaults: options.useDefaults === true });
  const doc = { body, errorStatuses: [400, 413, 415, 422] };
  if (refused !== undefined) return new Extractor("json", refusedSchema(refused), true, { ...doc, refused });
  if (foreign !== null) return new Extractor("json", (ctx) => readJson(ctx, maxElements, (v) => runStandard(foreign, v, "")), true, doc);
  return new Extractor("json", (ctx) => readJson(ctx, maxElements, (v) => runValidation(compiled!, v, ctx, "")), true, doc);
}

/** A text body (`text/*` or no content-type, else 415) that must be valid UTF-8 (else 400). */
export function text(): Extractor<string, true, { body: { type: "text"; value: string } }> {
  return new Extractor(
    "text",
    (ctx) => {
      const m = ctx.contentType.essence;
      requireMedia(ctx, m === "" || m.startsWith("text/"), "text/plain");
      // Text is read as UTF-8 (US-ASCII is a subset); a body declared in another charset is refused.
      const charset = ctx.contentType.charset;
      if (charset !== undefined && charset !== "utf-8" && charset !== "utf8" && charset !== "us-ascii") {
        throw ApiError.unsupportedMediaType(`Unsupported charset ${JSON.stringify(charset)}; send UTF-8 text`);
      }
      return ctx.body().then(decodeUtf8);
    },
    true,
    { body: { contentTypes: ["text/plain"], required: true, schema: { type: "string" } }, errorStatuses: [400, 413, 415] },
  );
}

/** The raw body bytes, any content type. */
export function bytes(): Extractor<Buffer, true, { body: { type: "bytes"; value: Uint8Array } }> {
  return new Extractor("bytes", (ctx) => ctx.body(), true, {
    body: { contentTypes: ["application/octet-stream"], required: true, schema: { type: "string", contentEncoding: "binary" } },
    errorStatuses: [413],
  });
}

function readForm(ctx: Context): Promise<ParamMap> {
  requireMedia(ctx, ctx.contentType.essence === "application/x-www-form-urlencoded", "application/x-www-form-urlencoded");
  return ctx.body().then((buf) => {
    const fields = parseQueryString(decodeUtf8(buf), true);
    if (fields === null) throw ApiError.badRequest("Invalid percent-encoding in the form body");
    return fields;
  });
}

/**
 * An urlencoded form body (else 415), coerced and validated by `schema` (failure: 422). A
 * Standard Schema gets the fields as strings (arrays for repeated names) unless it coerces.
 */
export function form(): Extractor<ParamMap, true, { body: { type: "form"; value: Record<string, string | readonly string[]> } }>;
export function form<const S extends AnySchema>(schema: S, options?: BodyOptions): Extractor<Static<S>, true, { body: { type: "form"; value: StaticInput<S> } }>;
export function form(schema?: AnySchema, options: BodyOptions = {}): Extractor<unknown, true, any> {
  const body = { contentTypes: ["application/x-www-form-urlencoded"], required: true, ...defined({ schema }) };
  if (schema === undefined) return new Extractor("form", readForm, true, { body, errorStatuses: [400, 413, 415] });
  const { compiled, foreign, refused } = schemaCheck("form", schema, { coerce: true, useDefaults: options.useDefaults === true });
  const doc = { body, errorStatuses: [400, 413, 415, 422] };
  if (refused !== undefined) return new Extractor("form", refusedSchema(refused), true, { ...doc, refused });
  if (foreign !== null) return new Extractor("form", (ctx) => readForm(ctx).then((v) => runStandard(foreign, v, "")), true, doc);
  return new Extractor("form", (ctx) => readForm(ctx).then((v) => runValidation(compiled!, compiled!.coerce(v), ctx, "")), true, doc);
}
