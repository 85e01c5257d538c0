// A Reply as plain, storable data and back: what the response cache and idempotency keys keep in
// a Store (possibly shared, so nothing but data: status, header pairs, a buffered body) and turn
// into a fresh Reply on a hit or a replay. Captured header arrays and body bytes are copies, so a
// later layer changing the sent reply cannot change what was stored, and restored ones are copies
// again, so a layer changing a replayed reply cannot change the stored one.
import { type HeaderValue, Reply, type ReplyBody } from "../index.js";

/** The storable part of a reply. Records that extend it (cache variants, idempotency records) stay plain data. */
export interface ReplySnapshot {
  status: number;
  /** Header pairs in the reply's order, without the names the capture left out. */
  headers: Array<[string, HeaderValue]>;
  /** The buffered body, or null: none, or one not kept (a stream, or larger than the cap). */
  body: string | Uint8Array | null;
}

export interface CapturedReply {
  readonly snapshot: ReplySnapshot;
  /** Characters of the kept header names and values (for a store's byte accounting). */
  readonly headerChars: number;
  /** Bytes of the kept body. */
  readonly bodyBytes: number;
  /** False when the body could not be kept (a stream, or over `maxBodyBytes`): the snapshot cannot stand in for the reply. */
  readonly complete: boolean;
}

function copyValue(v: HeaderValue): HeaderValue {
  return Array.isArray(v) ? [...(v as readonly string[])] : v;
}

/** Capture `reply`: its status, its headers except those named in `omit` (lowercase), and a buffered body of at most `maxBodyBytes`. */
export function captureReply(reply: Reply, omit: ReadonlySet<string>, maxBodyBytes = Infinity): CapturedReply {
  const headers: Array<[string, HeaderValue]> = [];
  let headerChars = 0;
  for (const name in reply.headers) {
    if (omit.has(name)) continue;
    const v = reply.headers[name]!;
    headers.push([name, copyValue(v)]);
    headerChars += name.length + String(v).length;
  }
  const b = reply.body;
  let body: string | Uint8Array | null = null;
  let bodyBytes = 0;
  let complete = true;
  if (typeof b === "string") {
    const n = Buffer.byteLength(b);
    if (n <= maxBodyBytes) (body = b), (bodyBytes = n);
    else complete = false;
  } else if (b instanceof Uint8Array) {
    if (b.byteLength <= maxBodyBytes) (body = Uint8Array.prototype.slice.call(b)), (bodyBytes = b.byteLength);
    else complete = false;
  } else if (b !== null) {
    complete = false; // a stream: it can be sent once
  }
  return { snapshot: { status: reply.status, headers, body }, headerChars, bodyBytes, complete };
}

/** A fresh reply (of `kind`, default Reply) from a snapshot; header arrays are copied. */
export function restoreReply(snapshot: ReplySnapshot, kind: new (status: number, body: ReplyBody) => Reply = Reply): Reply {
  const r = new kind(snapshot.status, snapshot.body);
  const h = r.headers;
  for (const [name, value] of snapshot.headers) h[name] = copyValue(value);
  return r;
}
