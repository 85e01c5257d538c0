// multipart(): the body extractor for multipart/form-data uploads. Text fields are validated by an
// optional schema (coerced as form() coerces, 422 like json()); files are streamed to a private
// temp directory (or a user sink) and never held in memory. The temp files are removed when the
// response is finished or the connection closes, and at once when the request fails.
//
// Repeated field names: every text field is collected as form() collects them (a repeated name
// becomes an array of strings); the schema then decides. An array property accepts one value or
// many (one is wrapped), any other property refuses a repeated name with a 422.
import { BodyLimitError, compileSchema, declaredLength, foreignSchema, isPromise, MissingValueError, runStandard, runValidation, type AnySchema } from "../../plugin.js";
import { ApiError, type Context, Extractor, type JsonSchema, type Static } from "../../index.js";
import { boundaryOf } from "./boundary.js";
import { multipartDocSchema } from "./doc-schema.js";
import { resolveOptions, type MultipartOptions, type ResolvedOptions } from "./options.js";
import { UploadSession, type RawMultipart, type UploadedFile } from "./upload-session.js";

/** Text fields: the schema's type, or every field as received. */
export type MultipartFields<S> = [S] extends [undefined] ? Record<string, string | string[]> : Static<S>;

/** Files by field name; with `files.names` every declared name is present (an empty list when none came). */
export type MultipartFiles<N extends string> = string extends N ? Record<string, UploadedFile[]> : Record<N, UploadedFile[]>;

export interface MultipartBody<F, N extends string = string> {
  fields: F;
  files: MultipartFiles<N>;
}

function startSession(ctx: Context, options: ResolvedOptions): UploadSession {
  if (ctx.contentType.essence !== "multipart/form-data") {
    const got = ctx.contentType.essence;
    throw ApiError.unsupportedMediaType(
      got === "" ? "Missing content-type; expected multipart/form-data" : `Unsupported content-type ${got}; expected multipart/form-data`,
    );
  }
  const req = ctx.req;
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    throw ApiError.unsupportedMediaType(`Content-Encoding ${JSON.stringify(encoding)} is not supported for request bodies; send them uncompressed`);
  }
  const boundary = boundaryOf(String(req.headers["content-type"]));
  if (req.readableEnded) throw ApiError.internal("The request body was already read", { detail: "multipart(): another extractor or layer consumed the body" });
  // -1: unknown until read (chunked, HTTP/2 without Content-Length); the bytes read are counted.
  const declared = declaredLength(req);
  if (declared === 0) throw new MissingValueError("Request body is empty; expected multipart/form-data");
  // Refused before a byte is read (or a file created), as ctx.body() refuses it.
  if (declared > ctx.bodyLimit) throw new BodyLimitError(ctx.bodyLimit);
  return new UploadSession(ctx, boundary, options);
}

/** Remove the session's files once the response is done: finished, failed or abandoned by the client. */
function disposeAfterResponse(ctx: Context, session: UploadSession): void {
  ctx.afterResponse(() => session.dispose());
}

/** Read the body, then `after(raw)`; on any failure the files are removed before the error answers. */
function readBody<T>(ctx: Context, options: ResolvedOptions, after: (raw: RawMultipart) => T | Promise<T>): Promise<T> {
  const session = startSession(ctx, options);
  disposeAfterResponse(ctx, session);
  return session
    .read()
    .then(after)
    .catch((err: unknown) => session.dispose().then(() => Promise.reject(err)));
}

/**
 * A multipart/form-data body (else 415): `{ fields, files }`. Limits are counted on the bytes
 * read (413 naming the limit), the route's `bodyLimit` bounds the whole body as it does for every
 * body extractor: raise it on upload routes.
 *
 * @example
 * route.post("/uploads", { bodyLimit: 20 * 1024 * 1024 },
 *   [multipart({ fields: t.object({ title: t.string() }), files: { names: ["file"], maxFileSize: 16 * 1024 * 1024 } })],
 *   ({ fields, files }) => ({ title: fields.title, size: files.file[0]?.size }));
 *
 * @see docs/features/web.md
 */
export function multipart<const S extends AnySchema | undefined = undefined, const N extends string = string>(
  options: MultipartOptions<S, N> = {},
): Extractor<MultipartBody<MultipartFields<S>, N>, true> {
  const resolved = resolveOptions(options as MultipartOptions<AnySchema | undefined, string>);
  const schema = options.fields;
  const doc = {
    body: { contentTypes: ["multipart/form-data"], required: true, schema: multipartDocSchema(schema, options.files?.names ?? []) },
    errorStatuses: [400, 413, 415, ...(schema === undefined ? [] : [422])],
  };
  type Body = MultipartBody<MultipartFields<S>, N>;
  if (schema === undefined) {
    const asBody = (raw: RawMultipart): Body => raw as Body;
    return new Extractor<Body, true>("multipart", (ctx) => readBody(ctx, resolved, asBody), true, doc);
  }
  const foreign = foreignSchema(schema);
  if (foreign !== null) {
    // Another library's schema gets the text fields as strings (arrays for repeated names).
    const check = (raw: RawMultipart): Body | Promise<Body> => {
      const done = (fields: unknown): Body => ({ fields, files: raw.files }) as Body;
      const checked = runStandard(foreign, raw.fields, "");
      return isPromise(checked) ? checked.then(done) : done(checked);
    };
    return new Extractor<Body, true>("multipart", (ctx) => readBody(ctx, resolved, check), true, doc);
  }
  const compiled = compileSchema(schema as JsonSchema, { coerce: true, useDefaults: options.useDefaults === true });
  const validate = (ctx: Context, raw: RawMultipart): Body | Promise<Body> => {
    const done = (fields: unknown): Body => ({ fields, files: raw.files }) as Body;
    const checked = runValidation(compiled, compiled.coerce(raw.fields), ctx, "");
    return isPromise(checked) ? checked.then(done) : done(checked);
  };
  return new Extractor<Body, true>("multipart", (ctx) => readBody(ctx, resolved, (raw) => validate(ctx, raw)), true, doc);
}
