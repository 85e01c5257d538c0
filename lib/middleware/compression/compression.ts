// Response compression with node:zlib: br, gzip and deflate, chosen from Accept-Encoding by
// q-value with the rules of the one Accept-Encoding parser (lib/util/accept.ts: q=0 refuses a
// coding, `*` covers the unnamed ones, an element with an invalid q is ignored, a named identity
// with a higher q wins; ties go to the server's order, `encodings`). No Accept-Encoding header
// means no compression.
//
// Compressed: bodies of compressible types (text/* except text/event-stream, JSON, XML, JS,
// SVG, TOON, NDJSON, wasm, fonts; or your `filter`) of at least `threshold` bytes (default 1 KiB;
// a stream of unknown length always qualifies). Skipped: answers that already have a
// Content-Encoding, `Cache-Control: no-transform`, 204/206/304 and 1xx, SSE, image/video/zip and
// every other type off the list. Whenever the choice depended on Accept-Encoding the answer gets
// `Vary: Accept-Encoding`.
// Buffered bodies under `syncBelow` (64 KiB) are compressed inline, larger ones on the zlib
// thread pool; a result that is not smaller is dropped. Streams are piped through a zlib stream
// (never buffered whole), each chunk flushed so streamed data reaches the client promptly
// (`streamFlush: false` trades that for ratio). Content-Length is removed from streams (the
// writer sets it for buffers); a strong ETag becomes weak (`W/"..."`, as nginx does), since the
// bytes differ while the representation is the same, and If-None-Match compares weakly.
// Brotli runs at quality 4 by default: the zlib default (11) is meant for static assets and costs
// tens of ms per response.
import { Readable, pipeline, type Transform } from "node:stream";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import type { Context, Layer, Next, Reply } from "../../index.js";
import { isJsonMediaType, selectEncoding } from "../../plugin.js";
import { appendVary, headerText, parseCacheControl } from "../../shared/header-lists.js";

export type CompressionEncoding = "br" | "gzip" | "deflate";

export interface CompressionOptions {
  /** Codings offered, in server preference order (default br, gzip, deflate). */
  encodings?: readonly CompressionEncoding[];
  /** Smallest body compressed, bytes (default 1024). */
  threshold?: number;
  /** gzip/deflate level 1-9 (default 6). */
  level?: number;
  /** Brotli quality 0-11 (default 4). */
  brotliQuality?: number;
  /** Which content types to compress (default: compressibleType). */
  filter?: (contentType: string) => boolean;
  /** Flush each chunk of a streamed body (default true). */
  streamFlush?: boolean;
  /** Buffered bodies below this size are compressed synchronously (default 64 KiB). */
  syncBelow?: number;
}

export const DEFAULT_COMPRESSION_THRESHOLD = 1024;
const DEFAULT_ENCODINGS: readonly CompressionEncoding[] = ["br", "gzip", "deflate"];

/** The default filter: text-like types, never event streams. */
export function compressibleType(contentType: string): boolean {
  const semi = contentType.indexOf(";");
  const t = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (t.startsWith("text/")) return t !== "text/event-stream";
  if (isJsonMediaType(t) || t.endsWith("+xml")) return true;
  switch (t) {
    case "application/javascript":
    case "application/xml":
    case "application/toon":
    case "application/x-ndjson":
    case "application/wasm":
    case "font/ttf":
    case "font/otf":
    case "application/vnd.ms-fontobject":
      return true;
    default:
      return false;
  }
}

/**
 * The coding to use for this Accept-Encoding, or null for identity. `supported` is in server
 * preference order, which breaks ties. The header is read by the one Accept-Encoding parser
 * (`selectEncoding` of keel/plugin): an element with an invalid q (`gzip;q=1e-1`) is ignored,
 * a named identity with a higher q than every coding keeps the body as it is.
 */
export function negotiateEncoding(header: string | undefined, supported: readonly CompressionEncoding[] = DEFAULT_ENCODINGS): CompressionEncoding | null {
  return selectEncoding(header, supported);
}

function bodyLength(reply: Reply): number {
  const b = reply.body;
  if (typeof b === "string") return Buffer.byteLength(b);
  if (b instanceof Uint8Array) return b.byteLength;
  const declared = Number(headerText(reply.headers["content-length"]));
  return Number.isFinite(declared) && declared >= 0 ? declared : Infinity;
}

const gzipAsync = promisify(zlib.gzip);
const deflateAsync = promisify(zlib.deflate);
const brotliAsync = promisify(zlib.brotliCompress);

/**
 * Response compression (br, gzip, deflate by Accept-Encoding) for compressible types of at least
 * `threshold` bytes; streams are compressed chunk by chunk.
 *
 * @example
 * ```ts
 * app.layer(compression({ threshold: 2048, encodings: ["gzip"] }));
 * ```
 * @see docs/features/middleware.md
 */
export function compression(options: CompressionOptions = {}): Layer {
  const encodings = options.encodings ?? DEFAULT_ENCODINGS;
  for (const e of encodings) if (e !== "br" && e !== "gzip" && e !== "deflate") throw new TypeError(`compression: unknown encoding ${JSON.stringify(e)}`);
  const threshold = options.threshold ?? DEFAULT_COMPRESSION_THRESHOLD;
  const filter = options.filter ?? compressibleType;
  const syncBelow = options.syncBelow ?? 64 * 1024;
  const level = options.level ?? 6;
  const quality = options.brotliQuality ?? 4;
  if (!Number.isInteger(level) || level < 1 || level > 9) throw new TypeError("compression: level must be an integer from 1 to 9");
  if (!Number.isInteger(quality) || quality < 0 || quality > 11) throw new TypeError("compression: brotliQuality must be an integer from 0 to 11");
  const flush = options.streamFlush !== false;
  const zOpts: zlib.ZlibOptions = { level };
  const brOpts: zlib.BrotliOptions = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality } };
  const zStreamOpts: zlib.ZlibOptions = flush ? { level, flush: zlib.constants.Z_SYNC_FLUSH } : zOpts;
  const brStreamOpts: zlib.BrotliOptions = flush ? { ...brOpts, flush: zlib.constants.BROTLI_OPERATION_FLUSH } : brOpts;
  // Clients send a handful of distinct Accept-Encoding strings: remember the answers (bounded).
  const memo = new Map<string, CompressionEncoding | null>();

  const choose = (header: string | undefined): CompressionEncoding | null => {
    if (header === undefined) return null;
    let enc = memo.get(header);
    if (enc === undefined) {
      enc = negotiateEncoding(header, encodings);
      if (header.length <= 256) {
        if (memo.size >= 128) memo.clear();
        memo.set(header, enc);
      }
    }
    return enc;
  };

  const compressSync = (enc: CompressionEncoding, input: Uint8Array): Buffer =>
    enc === "br" ? zlib.brotliCompressSync(input, brOpts) : enc === "gzip" ? zlib.gzipSync(input, zOpts) : zlib.deflateSync(input, zOpts);
  const compressAsync = (enc: CompressionEncoding, input: Uint8Array): Promise<Buffer> =>
    enc === "br" ? brotliAsync(input, brOpts) : enc === "gzip" ? gzipAsync(input, zOpts) : deflateAsync(input, zOpts);
  const compressStream = (enc: CompressionEncoding): Transform =>
    enc === "br" ? zlib.createBrotliCompress(brStreamOpts) : enc === "gzip" ? zlib.createGzip(zStreamOpts) : zlib.createDeflate(zStreamOpts);

  const mark = (reply: Reply, enc: CompressionEncoding): void => {
    const h = reply.headers;
    h["content-encoding"] = enc;
    delete h["content-length"];
    const etag = headerText(h["etag"]);
    if (etag !== undefined && !etag.startsWith("W/")) h["etag"] = "W/" + etag;
  };

  const finishBuffered = (reply: Reply, enc: CompressionEncoding, input: Uint8Array, out: Buffer): Reply => {
    if (out.byteLength >= input.byteLength) return reply;
    reply.body = out;
    mark(reply, enc);
    return reply;
  };

  return async function compressionLayer(ctx: Context, next: Next): Promise<Reply> {
    const reply = await next(ctx);
    const status = reply.status;
    if (status < 200 || status === 204 || status === 206 || status === 304) return reply;
    const body = reply.body;
    if (body === null) return reply;
    const h = reply.headers;
    if (h["content-encoding"] !== undefined) return reply;
    const type = headerText(h["content-type"]);
    if (type === undefined || !filter(type)) return reply;
    if (bodyLength(reply) < threshold) return reply;
    const cc = h["cache-control"];
    if (cc !== undefined && parseCacheControl(headerText(cc)).noTransform) return reply;
    appendVary(reply, "Accept-Encoding");
    const enc = choose(ctx.header("accept-encoding"));
    if (enc === null) return reply;
    if (typeof body === "string" || body instanceof Uint8Array) {
      const input = typeof body === "string" ? Buffer.from(body) : body;
      const out = input.byteLength < syncBelow ? compressSync(enc, input) : await compressAsync(enc, input);
      return finishBuffered(reply, enc, input, out);
    }
    const source = body instanceof Readable ? body : Readable.from(body, { objectMode: false });
    const z = compressStream(enc);
    // Errors end both streams; the writer's own pipeline then logs and closes the response.
    pipeline(source, z, () => {});
    reply.body = z;
    mark(reply, enc);
    return reply;
  };
}
