// acceptWebSocket(): finish the opening handshake on the raw socket of an 'upgrade' event
// (after the caller decided the request may upgrade) and hand back the connection.
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError } from "../index.js";
import { errorBodyJson, isHttpToken, isSafeHeaderValue, newErrorId } from "../plugin.js";
import { negotiate, type UpgradeRefusal } from "./handshake.js";
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_HIGH_WATER_MARK,
  DEFAULT_MAX_BUFFERED_AMOUNT,
  DEFAULT_MAX_INFLATE_RATE,
  DEFAULT_MAX_PAYLOAD,
  type WebSocketOptions,
} from "./options.js";
import { WebSocket } from "./websocket.js";

/** Thrown by acceptWebSocket() for a request that may not upgrade (the socket got the refusal). */
export class UpgradeRefusedError extends Error {
  readonly refusal: UpgradeRefusal;
  constructor(refusal: UpgradeRefusal) {
    super(`WebSocket upgrade refused: ${refusal.status} ${refusal.message}`);
    this.name = "UpgradeRefusedError";
    this.refusal = refusal;
  }
}

/** The refusal as an ApiError, for frameworks that answer it in the uniform error format. */
export function upgradeRefusalError(refusal: UpgradeRefusal): ApiError {
  return new ApiError(refusal.status, refusal.type, refusal.message, { headers: refusal.headers });
}

/**
 * Complete the handshake: write the 101 response and return the open WebSocket. Call it from
 * the server's 'upgrade' handler once the request is allowed; attach listeners in the same
 * tick (bytes that came with the request are parsed on the next microtask). A request that
 * fails checkUpgradeRequest() is answered with its refusal (uniform JSON error body) and
 * UpgradeRefusedError is thrown; call checkUpgradeRequest() first to answer it yourself.
 */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, options: WebSocketOptions = {}): WebSocket {
  const { refusal, agreement } = negotiate(req, options);
  if (refusal !== null) {
    writeRefusal(socket, refusal);
    throw new UpgradeRefusedError(refusal);
  }
  const maxPayload = positiveInteger(options.maxPayload, DEFAULT_MAX_PAYLOAD, "maxPayload");
  const highWaterMark = positiveInteger(options.highWaterMark, DEFAULT_HIGH_WATER_MARK, "highWaterMark");
  const maxBufferedAmount = positiveInteger(options.maxBufferedAmount, DEFAULT_MAX_BUFFERED_AMOUNT, "maxBufferedAmount");
  const maxInflateRate = positiveInteger(options.maxInflateRate, DEFAULT_MAX_INFLATE_RATE, "maxInflateRate");
  const closeTimeoutMs = positiveInteger(options.closeTimeoutMs, DEFAULT_CLOSE_TIMEOUT_MS, "closeTimeoutMs");
  if (options.heartbeat !== undefined) {
    positiveInteger(options.heartbeat.intervalMs, 1, "heartbeat.intervalMs");
    positiveInteger(options.heartbeat.timeoutMs, 1, "heartbeat.timeoutMs");
  }

  let response =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Accept: ${agreement.accept}\r\n`;
  if (agreement.protocol !== "") response += `Sec-WebSocket-Protocol: ${agreement.protocol}\r\n`;
  if (agreement.deflate !== null) response += `Sec-WebSocket-Extensions: ${agreement.deflate.response}\r\n`;
  if (options.headers !== undefined) response += extraHeaders(options.headers);
  response += "\r\n";

  const ws = new WebSocket(socket, {
    protocol: agreement.protocol,
    deflate: agreement.deflate,
    maxPayload,
    highWaterMark,
    maxBufferedAmount,
    maxInflateRate,
    closeTimeoutMs,
    heartbeat: options.heartbeat,
  });
  prepareSocket(socket);
  if (!socket.destroyed) socket.write(response);
  options.registry?.add(ws);
  if (head.length > 0) queueMicrotask(() => ws.receive(head));
  return ws;
}

function prepareSocket(socket: Duplex): void {
  // net.Socket / tls.TLSSocket: no idle timeout from the HTTP server, no Nagle delay on frames.
  const net = socket as Duplex & { setTimeout?: (ms: number) => void; setNoDelay?: (noDelay: boolean) => void };
  if (typeof net.setTimeout === "function") net.setTimeout(0);
  if (typeof net.setNoDelay === "function") net.setNoDelay(true);
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`WebSocket option ${name} must be a positive integer`);
  return value;
}

function extraHeaders(headers: Record<string, string | readonly string[]>): string {
  let text = "";
  for (const name of Object.keys(headers)) {
    const value = headers[name]!;
    if (!isHttpToken(name)) throw new TypeError(`invalid header name for the 101 response: ${name}`);
    for (const one of typeof value === "string" ? [value] : value) {
      if (!isSafeHeaderValue(one)) throw new TypeError(`invalid value for header ${name} in the 101 response`);
      text += `${name}: ${one}\r\n`;
    }
  }
  return text;
}

/** Answer a refused upgrade on the raw socket with the uniform error body, then close it. */
export function writeRefusal(socket: Duplex, refusal: UpgradeRefusal): void {
  if (socket.destroyed) return;
  const body = errorBodyJson(upgradeRefusalError(refusal), newErrorId(), false);
  let head = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ""}\r\nConnection: close\r\n`;
  head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  for (const name of Object.keys(refusal.headers)) head += `${name}: ${refusal.headers[name]}\r\n`;
  socket.end(head + "\r\n" + body);
}
