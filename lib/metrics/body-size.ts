// Body sizes as the HTTP layer can know them without reading a body twice.
import { Buffer } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import type { Reply } from "../index.js";
import { isBodyless } from "../plugin.js";

/** A Content-Length value as a byte count, or -1 when it is not one. */
function lengthOf(value: string | number | readonly string[] | undefined): number {
  if (value === undefined || typeof value === "object") return -1;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : -1;
}

/** The request body's size: its Content-Length, 0 without a body, -1 when chunked (unknown). */
export function requestBodySize(headers: IncomingHttpHeaders): number {
  const declared = headers["content-length"];
  if (declared !== undefined) return lengthOf(declared);
  return headers["transfer-encoding"] === undefined ? 0 : -1;
}

/**
 * The response body's size on the wire (before any compression a socket-level proxy adds): 0 for
 * answers without a body (HEAD, 204, 304, 1xx), Content-Length when set, else the length of a
 * string or byte body; -1 for a stream of unknown length. The reply's body must be settled.
 */
export function responseBodySize(method: string, reply: Reply): number {
  if (isBodyless(method, reply.status)) return 0;
  const declared = reply.headers["content-length"];
  if (declared !== undefined) return lengthOf(declared);
  const body = reply.body;
  if (body === null) return 0;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return -1;
}
