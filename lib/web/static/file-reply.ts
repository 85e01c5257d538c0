// The reply for one opened file: validators and caching headers, 304 for a fresh cache entry,
// 206 for a single satisfiable range, 416 for an unsatisfiable one, HEAD without a body, and
// otherwise the bytes streamed from the open descriptor (the kernel's writer pipes the stream with
// backpressure; a client that goes away destroys it, which closes the descriptor). The file is
// never read whole into memory.
import { ApiError, type Context, Reply, type ReplyHeaders } from "../../index.js";
import { fastNullProtoMap } from "../../plugin.js";
import { parseByteRange } from "./byte-range.js";
import type { OpenedFile } from "./static-root.js";
import { fileValidators, isNotModified, rangeStillValid } from "./validators.js";

export interface FileReplyOptions {
  /** `Cache-Control` of every file reply. */
  readonly cacheControl: string;
  /** Send `Vary: Accept-Encoding` (precompressed siblings are on: the answer depends on it). */
  readonly vary: boolean;
}

/** What is sent: the opened file, its Content-Type, and the coding of the bytes (null: none). */
export interface SelectedFile {
  readonly file: OpenedFile;
  readonly contentType: string;
  readonly encoding: "br" | "gzip" | null;
}

export async function fileReply(ctx: Context, selected: SelectedFile, options: FileReplyOptions): Promise<Reply> {
  const { file, encoding } = selected;
  const size = file.stats.size;
  const v = fileValidators(size, file.stats.mtimeMs, encoding);
  const req = ctx.req.headers;

  // Headers a 304 repeats (RFC 9110 §15.4.5): the validators, Cache-Control and Vary.
  const headers: ReplyHeaders = fastNullProtoMap();
  headers["etag"] = v.etag;
  headers["last-modified"] = v.lastModified;
  headers["cache-control"] = options.cacheControl;
  if (options.vary) headers["vary"] = "Accept-Encoding";
  if (isNotModified(v, req["if-none-match"], req["if-modified-since"])) {
    await file.handle.close();
    return new Reply(304, null, headers);
  }

  headers["content-type"] = selected.contentType;
  headers["x-content-type-options"] = "nosniff";
  headers["accept-ranges"] = "bytes";
  if (encoding !== null) headers["content-encoding"] = encoding;

  // Range applies to GET only (RFC 9110 §14.2), and to the bytes as sent (the encoded file).
  let start = 0;
  let end = size - 1;
  let status = 200;
  const range = req["range"];
  if (ctx.method === "GET" && range !== undefined && rangeStillValid(v, ctx.header("if-range"))) {
    const decision = parseByteRange(range, size);
    if (decision === "unsatisfiable") {
      await file.handle.close();
      throw new ApiError(416, "range_not_satisfiable", "Range not satisfiable", {
        headers: { "content-range": `bytes */${size}`, "accept-ranges": "bytes" },
      });
    }
    if (decision !== "ignore") {
      start = decision.start;
      end = decision.end;
      status = 206;
      headers["content-range"] = `bytes ${start}-${end}/${size}`;
    }
  }
  const length = end - start + 1;
  headers["content-length"] = length;
  if (ctx.method === "HEAD" || length === 0) {
    await file.handle.close();
    return new Reply(status, null, headers);
  }
  // autoClose (the default) closes the handle when the stream ends, fails or is destroyed.
  return new Reply(status, file.handle.createReadStream({ start, end }), headers);
}
