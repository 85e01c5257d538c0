// A minimal WebSocket client (RFC 6455) for the soak, on node:http's upgrade: the handshake with
// its Sec-WebSocket-Accept check, masked frames out, unmasked frames in (fragmented messages
// joined), pings answered, and the closing handshake. No extensions are offered. With
// `read: false` the socket is paused right after the handshake and never read: a peer that
// does not read, whose unread bytes stay in the kernel and the server.
import { createHash, randomBytes, randomFillSync } from "node:crypto";
import { EventEmitter } from "node:events";
import { request } from "node:http";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** Largest frame or message this client accepts (the sample's routes stop at 64 KiB). */
const MAX_MESSAGE = 1024 * 1024;
const CLOSE_WAIT_MS = 5000;

export const OP_TEXT = 1;
export const OP_BINARY = 2;
const OP_CONTINUATION = 0;
const OP_CLOSE = 8;
const OP_PING = 9;
const OP_PONG = 10;

/** One masked client frame (a fresh mask key each call). */
export function encodeFrame(opcode, payload) {
  const len = payload.length;
  const headerLength = len < 126 ? 2 : len < 65536 ? 4 : 10;
  const out = Buffer.allocUnsafe(headerLength + 4 + len);
  out[0] = 0x80 | opcode;
  if (len < 126) out[1] = 0x80 | len;
  else if (len < 65536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(len, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(0, 2);
    out.writeUInt32BE(len, 6);
  }
  const mask = out.subarray(headerLength, headerLength + 4);
  randomFillSync(mask);
  for (let i = 0; i < len; i++) out[headerLength + 4 + i] = payload[i] ^ mask[i & 3];
  return out;
}

/**
 * Open a WebSocket on 127.0.0.1:`port` + `path`. Resolves to a WsConnection; rejects when the
 * server answers anything but a valid 101.
 */
export function openWebSocket({ port, path, localAddress, protocols = [], headers = {}, read = true, timeoutMs = 10_000 }) {
  return new Promise((resolve, reject) => {
    const key = randomBytes(16).toString("base64");
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      localAddress,
      agent: false,
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": key,
        ...(protocols.length > 0 ? { "sec-websocket-protocol": protocols.join(", ") } : {}),
        ...headers,
      },
    });
    const timer = setTimeout(() => req.destroy(new Error("handshake timed out")), timeoutMs);
    req.on("upgrade", (res, socket, head) => {
      clearTimeout(timer);
      if (res.headers["sec-websocket-accept"] !== createHash("sha1").update(key + GUID).digest("base64")) {
        socket.destroy();
        reject(new Error("wrong Sec-WebSocket-Accept"));
        return;
      }
      resolve(new WsConnection(socket, head, read, res.headers["sec-websocket-protocol"]));
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      res.resume();
      reject(new Error(`handshake answered ${res.statusCode}`));
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

/**
 * Events: 'message' (data: Buffer, isBinary), 'close' ({ code, reason, byServer, error }) once,
 * when the TCP connection is gone. `byServer`: the server sent the first close frame, or the
 * connection ended without our close frame.
 */
export class WsConnection extends EventEmitter {
  #buffer = Buffer.alloc(0);
  #fragments = null;
  #fragmentOpcode = 0;
  #fragmentBytes = 0;
  #closeTimer = undefined;

  constructor(socket, head, read, protocol) {
    super();
    this.socket = socket;
    this.protocol = protocol;
    this.closeSent = false;
    this.closeCode = undefined;
    this.closeReason = "";
    this.byServer = false;
    this.error = undefined;
    this.closed = false;
    socket.setNoDelay(true);
    socket.on("error", (err) => {
      this.error ??= err;
    });
    socket.on("close", () => {
      this.closed = true;
      clearTimeout(this.#closeTimer);
      if (!this.closeSent) this.byServer = true;
      this.emit("close", { code: this.closeCode ?? 1006, reason: this.closeReason, byServer: this.byServer, error: this.error });
    });
    if (!read) {
      socket.pause();
      return;
    }
    socket.on("data", (chunk) => this.#onData(chunk));
    if (head.length > 0) this.#onData(head);
  }

  /** Send one message; false when the socket's write buffer is over its high-water mark. */
  send(data, binary) {
    if (this.closeSent || this.closed) return false;
    return this.socket.write(encodeFrame(binary ? OP_BINARY : OP_TEXT, typeof data === "string" ? Buffer.from(data) : data));
  }

  /** The closing handshake (our close frame, the server's, then TCP); resolves when closed. */
  close(code = 1000, reason = "") {
    if (this.closed) return Promise.resolve();
    const done = new Promise((resolve) => this.once("close", resolve));
    this.#sendClose(code, reason);
    return done;
  }

  /** Drop the connection without a closing handshake. */
  destroy() {
    this.closeSent = true; // ours: not counted as the server's doing
    this.socket.destroy();
  }

  #sendClose(code, reason) {
    if (this.closeSent) return;
    this.closeSent = true;
    const payload = code === undefined ? Buffer.alloc(0) : Buffer.concat([Buffer.from([code >> 8, code & 0xff]), Buffer.from(reason)]);
    this.socket.write(encodeFrame(OP_CLOSE, payload));
    this.#closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
  }

  #protocolError(message) {
    this.error ??= new Error(message);
    this.socket.destroy();
  }

  #onData(chunk) {
    let buf = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (buf.length >= 2 && !this.socket.destroyed) {
      const b0 = buf[0];
      const b1 = buf[1];
      if ((b0 & 0x70) !== 0) return this.#protocolError("RSV bits set on a frame (no extension was negotiated)");
      if ((b1 & 0x80) !== 0) return this.#protocolError("masked frame from the server");
      let length = b1 & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buf.length < 4) break;
        length = buf.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buf.length < 10) break;
        if (buf.readUInt32BE(2) !== 0) return this.#protocolError("frame over 4 GiB");
        length = buf.readUInt32BE(6);
        offset = 10;
      }
      if (length > MAX_MESSAGE) return this.#protocolError(`frame of ${length} bytes`);
      if (buf.length < offset + length) break;
      const payload = buf.subarray(offset, offset + length);
      buf = buf.subarray(offset + length);
      this.#onFrame((b0 & 0x80) !== 0, b0 & 0x0f, payload);
    }
    // Keep only the unparsed tail (a copy: the chunk it came from can go).
    this.#buffer = buf.length === 0 ? Buffer.alloc(0) : Buffer.from(buf);
  }

  #onFrame(fin, opcode, payload) {
    switch (opcode) {
      case OP_TEXT:
      case OP_BINARY:
        if (this.#fragments !== null) return this.#protocolError("a new message inside a fragmented one");
        if (fin) this.emit("message", payload, opcode === OP_BINARY);
        else {
          this.#fragments = [Buffer.from(payload)];
          this.#fragmentOpcode = opcode;
          this.#fragmentBytes = payload.length;
        }
        return;
      case OP_CONTINUATION: {
        if (this.#fragments === null) return this.#protocolError("continuation without a message");
        this.#fragments.push(Buffer.from(payload));
        this.#fragmentBytes += payload.length;
        if (this.#fragmentBytes > MAX_MESSAGE) return this.#protocolError("message over 1 MiB");
        if (fin) {
          const message = Buffer.concat(this.#fragments);
          this.#fragments = null;
          this.emit("message", message, this.#fragmentOpcode === OP_BINARY);
        }
        return;
      }
      case OP_CLOSE:
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        this.closeReason = payload.subarray(2).toString();
        if (!this.closeSent) {
          this.byServer = true;
          this.#sendClose(payload.length >= 2 ? this.closeCode : undefined, "");
        }
        this.socket.end();
        return;
      case OP_PING:
        if (!this.closeSent) this.socket.write(encodeFrame(OP_PONG, payload));
        return;
      case OP_PONG:
        return;
      default:
        this.#protocolError(`unknown opcode ${opcode}`);
    }
  }
}
