// Extractors for the parts of a request that are not the body: path, query, header, cookie.
import type { Context } from "../core/context.js";
import type { ParamMap } from "../core/query.js";
import { compileSchema, type JsonSchema, type Static } from "../schema/index.js";
import { Extractor, MissingValueError } from "../core/extractor.js";
import { runValidation } from "./validate.js";
import { defined } from "../util/defined.js";

/** A path parameter, as a string, or coerced and validated by `schema` (failure: 422). */
export function path<const N extends string>(name: N): Extractor<string, false, { params: { [K in N]: string } }>;
export function path<const N extends string, const S extends JsonSchema>(name: N, schema: S): Extractor<Static<S>, false, { params: { [K in N]: Static<S> } }>;
export function path(name: string, schema?: JsonSchema): Extractor<unknown, false, any> {
  const read = (ctx: Context): string => {
    const v = ctx.params[name];
    if (v === undefined) throw new MissingValueError(`Missing path parameter: ${name}`);
    return v;
  };
  const doc = { parameters: [{ in: "path" as const, name, required: true, ...defined({ schema }) }] };
  if (schema === undefined) return new Extractor("path:" + name, read, false, doc);
  const compiled = compileSchema(schema, { coerce: true });
  return new Extractor("path:" + name, (ctx) => runValidation(compiled, compiled.coerce(read(ctx)), ctx, name), false, {
    ...doc,
    errorStatuses: [422],
  });
}

/** The query string as a map, or coerced and validated against an object schema (failure: 422). */
export function query(): Extractor<ParamMap>;
export function query<const S extends JsonSchema>(schema: S): Extractor<Static<S>, false, { query: Static<S> }>;
export function query(schema?: JsonSchema): Extractor<unknown, false, any> {
  if (schema === undefined) return new Extractor("query", (ctx) => ctx.query, false, {});
  const compiled = compileSchema(schema, { coerce: true, useDefaults: true });
  return new Extractor(
    "query",
    // Validation may coerce in place, so it works on a copy of the shared parsed map.
    (ctx) => runValidation(compiled, compiled.coerce(Object.assign(Object.create(null), ctx.query)), ctx, ""),
    false,
    { querySchema: schema, errorStatuses: [422] },
  );
}

/** One request header (missing: 400 `Missing required header: name`), optionally validated. */
export function header<const N extends string>(name: N): Extractor<string, false, { headers: { [K in Lowercase<N>]: string } }>;
export function header<const N extends string, const S extends JsonSchema>(name: N, schema: S): Extractor<Static<S>, false, { headers: { [K in Lowercase<N>]: Static<S> } }>;
export function header(name: string, schema?: JsonSchema): Extractor<unknown, false, any> {
  const key = name.toLowerCase();
  const read = (ctx: Context): string => {
    const v = ctx.header(key);
    if (v === undefined) throw new MissingValueError(`Missing required header: ${key}`);
    return v;
  };
  const doc = { parameters: [{ in: "header" as const, name: key, required: true, ...defined({ schema }) }] };
  if (schema === undefined) return new Extractor("header:" + key, read, false, { ...doc, errorStatuses: [400] });
  const compiled = compileSchema(schema, { coerce: true });
  return new Extractor("header:" + key, (ctx) => runValidation(compiled, compiled.coerce(read(ctx)), ctx, key), false, {
    ...doc,
    errorStatuses: [400, 422],
  });
}

/** One cookie value (missing: 400). */
export function cookie(name: string): Extractor<string> {
  return new Extractor(
    "cookie:" + name,
    (ctx) => {
      const v = ctx.cookies[name];
      if (v === undefined) throw new MissingValueError(`Missing required cookie: ${name}`);
      return v;
    },
    false,
    { parameters: [{ in: "cookie", name, required: true }], errorStatuses: [400] },
  );
}
