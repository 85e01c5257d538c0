// Extractors for the parts of a request that are not the body: path, query, header, cookie.
// Each takes a JSON Schema (`t`: coerced from the string) or any Standard Schema, which gets the
// value as the string it is on the wire (query: an object of strings, arrays for repeated names)
// unless it coerces itself.
import type { Context } from "../core/context.js";
import type { ParamMap } from "../core/query.js";
import type { AnySchema, Static, StaticInput } from "../schema/index.js";
import { Extractor, MissingValueError, type ExtractorDoc } from "../core/extractor.js";
import { refusedSchema, runStandard, runValidation, schemaCheck } from "./validate.js";
import { defined } from "../util/defined.js";

/** A one-value extractor (path, header, cookie) with an optional schema checking the string it reads. */
function single(label: string, read: (ctx: Context) => string, doc: ExtractorDoc, schema: AnySchema | undefined, prefix: string, statuses: readonly number[]): Extractor<unknown, false, any> {
  if (schema === undefined) return new Extractor(label, read, false, doc);
  const { compiled, foreign, refused } = schemaCheck(label, schema, { coerce: true });
  const checked = { ...doc, errorStatuses: statuses };
  if (refused !== undefined) return new Extractor(label, refusedSchema(refused), false, { ...checked, refused });
  if (foreign !== null) return new Extractor(label, (ctx) => runStandard(foreign, read(ctx), prefix), false, checked);
  return new Extractor(label, (ctx) => runValidation(compiled!, compiled!.coerce(read(ctx)), ctx, prefix), false, checked);
}

/** A path parameter, as a string, or coerced and validated by `schema` (failure: 422). */
export function path<const N extends string>(name: N): Extractor<string, false, { params: { [K in N]: string } }>;
export function path<const N extends string, const S extends AnySchema>(name: N, schema: S): Extractor<Static<S>, false, { params: { [K in N]: StaticInput<S> } }>;
export function path(name: string, schema?: AnySchema): Extractor<unknown, false, any> {
  const read = (ctx: Context): string => {
    const v = ctx.params[name];
    if (v === undefined) throw new MissingValueError(`Missing path parameter: ${name}`);
    return v;
  };
  const doc = { parameters: [{ in: "path" as const, name, required: true, ...defined({ schema }) }] };
  return single("path:" + name, read, doc, schema, name, [422]);
}

/** The query string as a map, or coerced and validated against an object schema (failure: 422). */
export function query(): Extractor<ParamMap>;
export function query<const S extends AnySchema>(schema: S): Extractor<Static<S>, false, { query: StaticInput<S> }>;
export function query(schema?: AnySchema): Extractor<unknown, false, any> {
  if (schema === undefined) return new Extractor("query", (ctx) => ctx.query, false, {});
  const { compiled, foreign, refused } = schemaCheck("query", schema, { coerce: true, useDefaults: true });
  const doc = { querySchema: schema, errorStatuses: [422] };
  if (refused !== undefined) return new Extractor("query", refusedSchema(refused), false, { ...doc, refused });
  // Validation may coerce (or a foreign schema transform) in place, so it works on a copy of the shared parsed map.
  if (foreign !== null) return new Extractor("query", (ctx) => runStandard(foreign, Object.assign(Object.create(null), ctx.query), ""), false, doc);
  return new Extractor(
    "query",
    (ctx) => runValidation(compiled!, compiled!.coerce(Object.assign(Object.create(null), ctx.query)), ctx, ""),
    false,
    doc,
  );
}

/** One request header (missing: 400 `Missing required header: name`), optionally validated. */
export function header<const N extends string>(name: N): Extractor<string, false, { headers: { [K in Lowercase<N>]: string } }>;
export function header<const N extends string, const S extends AnySchema>(name: N, schema: S): Extractor<Static<S>, false, { headers: { [K in Lowercase<N>]: StaticInput<S> } }>;
export function header(name: string, schema?: AnySchema): Extractor<unknown, false, any> {
  const key = name.toLowerCase();
  const read = (ctx: Context): string => {
    const v = ctx.header(key);
    if (v === undefined) throw new MissingValueError(`Missing required header: ${key}`);
    return v;
  };
  const doc = { parameters: [{ in: "header" as const, name: key, required: true, ...defined({ schema }) }], errorStatuses: [400] };
  return single("header:" + key, read, doc, schema, key, [400, 422]);
}

/** One cookie value (missing: 400), optionally coerced and validated by `schema` (failure: 422). */
export function cookie(name: string): Extractor<string>;
export function cookie<const S extends AnySchema>(name: string, schema: S): Extractor<Static<S>>;
export function cookie(name: string, schema?: AnySchema): Extractor<unknown, false, any> {
  const read = (ctx: Context): string => {
    const v = ctx.cookies[name];
    if (v === undefined) throw new MissingValueError(`Missing required cookie: ${name}`);
    return v;
  };
  const doc = { parameters: [{ in: "cookie" as const, name, required: true, ...defined({ schema }) }], errorStatuses: [400] };
  return single("cookie:" + name, read, doc, schema, name, [400, 422]);
}
