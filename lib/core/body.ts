// Reading request bodies: counted on bytes actually read (chunked too), never past the limit.
import { Buffer } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { ApiError } from "./errors.js";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** Marks an error that leaves unread request bytes on the wire: the connection must close. */
export class BodyLimitError extends ApiError {
  constructor(limit: number) {
    super(413, "payload_too_large", `Request body exceeds limit of ${limit} bytes`, {
      headers: { connection: "close" },
    });
  }
}

/** The body's declared length: 0 when none is sent, -1 when unknown (chunked, HTTP/2, a bad Content-Length). */
export function declaredLength(req: IncomingMessage): number {
  const te = req.headers["transfer-encoding"];
  if (te !== undefined) return -1; // chunked: the length is whatever arrives
  const cl = req.headers["content-length"];
  // HTTP/2 frames the body itself (DATA frames until END_STREAM): no Content-Length is needed.
  if (cl === undefined) return req.httpVersionMajor === 2 ? -1 : 0;
  const n = Number(cl);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

/**
 * Read the whole body, at most `limit` bytes. A declared Content-Length over the limit is
 * refused before reading anything; a stream that grows past it is abandoned at that byte.
 */
export function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // Request bodies are not decompressed: a gzip body read as JSON would be a different body
  // than its sender meant (and a decompression bomb if we did inflate it unbounded).
  const encoding = req.headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    return Promise.reject(ApiError.unsupportedMediaType(`Content-Encoding ${JSON.stringify(encoding)} is not supported for request bodies; send them uncompressed`));
  }
  const declared = declaredLength(req);
  if (declared === 0) return Promise.resolve(EMPTY);
  if (declared > limit) return Promise.reject(new BodyLimitError(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // Three listeners: a client that goes away mid-body makes node:http emit "error" (ECONNRESET,
    // "aborted") after the deprecated "aborted" event, so one handler covers both.
    const cleanup = (): void => {
      req.removeListener("data", onData);
      req.removeListener("end", onEnd);
      req.removeListener("error", onError);
    };
    function onData(chunk: Buffer): void {
      received += chunk.length;
      if (received > limit) {
        cleanup();
        req.pause();
        reject(new BodyLimitError(limit));
        return;
      }
      chunks.push(chunk);
    }
    function onEnd(): void {
      cleanup();
      // An HTTP/2 stream reset by the client ends its request normally (no "error"): the body
      // is cut off all the same.
      if (req.aborted) reject(ApiError.badRequest("Request body was cut off by the client"));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    }
    function onError(err: Error): void {
      cleanup();
      if ((err as NodeJS.ErrnoException).code === "ECONNRESET") reject(ApiError.badRequest("Request body was cut off by the client", { cause: err }));
      else reject(ApiError.badRequest("Request body could not be read", { cause: err, detail: err.message }));
    }
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}
