// A minimal gRPC client for the soak, on node:http2: users.v1.Users requests encoded by hand
// (protobuf varints and length-delimited fields), the 5-byte message prefix, and a call that
// reads every response message and the grpc-status from the trailers (or from the headers of a
// trailers-only answer).
import { connect, constants } from "node:http2";

const MAX_MESSAGE = 4 * 1024 * 1024;

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}

/** GetUserRequest { uint64 id = 1 }. */
export function getUserRequest(id) {
  return id === 0 ? Buffer.alloc(0) : Buffer.from([0x08, ...varint(id)]);
}

/** ListUsersRequest { uint32 page_size = 1; uint64 after_id = 2 }. */
export function listUsersRequest(pageSize, afterId = 0) {
  return Buffer.from([...(pageSize ? [0x08, ...varint(pageSize)] : []), ...(afterId ? [0x10, ...varint(afterId)] : [])]);
}

/** User { uint64 id = 1; string email = 2 }; unknown fields are skipped. Throws on bad wire data. */
export function decodeUser(buf) {
  const user = { id: 0, email: "" };
  let pos = 0;
  const readVarint = () => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length || shift > 63n) throw new Error("truncated varint");
      const byte = buf[pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  while (pos < buf.length) {
    const tag = Number(readVarint());
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) {
      const v = readVarint();
      if (field === 1) user.id = Number(v);
    } else if (wire === 2) {
      const len = Number(readVarint());
      if (pos + len > buf.length) throw new Error("truncated field");
      if (field === 2) user.email = buf.subarray(pos, pos + len).toString();
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`wire type ${wire}`);
  }
  if (pos !== buf.length) throw new Error("truncated message");
  return user;
}

/** A message with gRPC's prefix: compressed flag 0, 4-byte big-endian length. */
export function frame(message) {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
}

/** Splits a response body into messages. */
class MessageReader {
  #buffer = Buffer.alloc(0);

  push(chunk) {
    let buf = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const out = [];
    while (buf.length >= 5) {
      if (buf[0] !== 0) throw new Error(`compressed flag ${buf[0]} (no encoding was accepted)`);
      const len = buf.readUInt32BE(1);
      if (len > MAX_MESSAGE) throw new Error(`a message of ${len} bytes`);
      if (buf.length < 5 + len) break;
      out.push(buf.subarray(5, 5 + len));
      buf = buf.subarray(5 + len);
    }
    this.#buffer = Buffer.from(buf);
    return out;
  }

  get leftover() {
    return this.#buffer.length;
  }
}

export function grpcSession(url, settings) {
  const session = connect(url, settings === undefined ? {} : { settings });
  session.on("error", () => undefined); // seen by the calls on it and by 'close'
  return session;
}

/**
 * One call: sends `message`, hands each response message to `onMessage`, resolves (never
 * rejects) to { httpStatus, status, message, error } when the stream closes.
 */
export function grpcCall(session, path, message, onMessage, timeoutMs = 10_000) {
  return new Promise((resolve) => {
    let headers;
    let trailers;
    let error;
    const reader = new MessageReader();
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc", te: "trailers" });
    const timer = setTimeout(() => {
      error ??= new Error(`no status within ${timeoutMs} ms`);
      stream.close(constants.NGHTTP2_CANCEL);
    }, timeoutMs);
    stream.on("response", (h) => (headers = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (chunk) => {
      try {
        for (const m of reader.push(chunk)) onMessage(m);
      } catch (err) {
        error ??= err;
        stream.close(constants.NGHTTP2_CANCEL);
      }
    });
    stream.on("error", (err) => (error ??= err));
    stream.on("close", () => {
      clearTimeout(timer);
      const status = trailers?.["grpc-status"] ?? headers?.["grpc-status"];
      if (error === undefined && reader.leftover > 0) error = new Error(`${reader.leftover} bytes of a cut message`);
      resolve({
        httpStatus: headers?.[":status"],
        status: status === undefined ? undefined : Number(status),
        message: decodeURIComponent(trailers?.["grpc-message"] ?? headers?.["grpc-message"] ?? ""),
        error,
      });
    });
    stream.end(frame(message));
  });
}
