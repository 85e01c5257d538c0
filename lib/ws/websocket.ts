// One accepted WebSocket connection, server side: receives through the FrameParser, sends
// unmasked frames, runs the close handshake (RFC 6455 §7), optional permessage-deflate and
// heartbeat. All socket/zlib/timer callbacks are methods bound once per connection.
// Reading from the socket is held (socket and parser paused) for three reasons, each bounding
// what one peer can make the server hold or do: an inflation in progress, an outgoing buffer
// above maxBufferedAmount, a spent inflation budget (maxInflateRate).
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { isUtf8 } from "node:buffer";
import type { Duplex } from "node:stream";
import { CloseCode, isValidWireCloseCode, MAX_CONTROL_PAYLOAD, Opcode, ReadyState } from "./constants.js";
import { FrameParser, type FrameSink } from "./frame-parser.js";
import { encodeFrame, encodeTextFrame } from "./frame-writer.js";
import { MessageTooBigError, PerMessageDeflate } from "./permessage-deflate.js";
import { Utf8Validator } from "./utf8-validator.js";
import type { DeflateParams } from "./deflate-negotiation.js";

export interface WebSocketEvents {
  /** Text arrives as a string, binary as a Buffer. */
  message: [data: Buffer | string, isBinary: boolean];
  /** The peer's close code (1005 when its close frame had none, 1006 when there was no close frame). */
  close: [code: number, reason: string];
  error: [error: Error];
  ping: [data: Buffer];
  pong: [data: Buffer];
  /** bufferedAmount fell back to the high-water mark after send() returned false. */
  drain: [];
}

export interface HeartbeatOptions {
  /** Ping every this many milliseconds. */
  intervalMs: number;
  /** Terminate the connection (close code 1006) when no pong arrives within this many milliseconds. */
  timeoutMs: number;
}

export type SendCallback = (error?: Error | null) => void;

/** Settings of one connection, resolved by acceptWebSocket(). */
export interface ConnectionSettings {
  protocol: string;
  deflate: DeflateParams | null;
  maxPayload: number;
  highWaterMark: number;
  maxBufferedAmount: number;
  maxInflateRate: number;
  closeTimeoutMs: number;
  heartbeat: HeartbeatOptions | undefined;
}

interface QueuedFrame {
  opcode: number;
  payload: Uint8Array;
  compress: boolean;
  callback: SendCallback | undefined;
}

const EMPTY = Buffer.alloc(0);

/** Why reading is held (bits of `readHold`). */
const enum Hold {
  Inflating = 1,
  Buffered = 2,
  InflateBudget = 4,
}

function notOpen(callback: SendCallback | undefined): void {
  if (callback !== undefined) process.nextTick(callback, new Error("WebSocket is not open"));
}

export class WebSocket extends EventEmitter<WebSocketEvents> implements FrameSink {
  static readonly CONNECTING = ReadyState.CONNECTING;
  static readonly OPEN = ReadyState.OPEN;
  static readonly CLOSING = ReadyState.CLOSING;
  static readonly CLOSED = ReadyState.CLOSED;

  /** The subprotocol agreed in the handshake ("" for none). */
  readonly protocol: string;
  /** The Sec-WebSocket-Extensions the server answered with ("" for none). */
  readonly extensions: string;

  private state: ReadyState = ReadyState.OPEN;
  private readonly socket: Duplex;
  private readonly parser: FrameParser;
  private readonly deflate: PerMessageDeflate | null;
  private readonly utf8 = new Utf8Validator();
  private readonly maxPayload: number;
  private readonly highWaterMark: number;
  private readonly closeTimeoutMs: number;
  private readonly heartbeat: HeartbeatOptions | undefined;
  /** Reading stops while bufferedAmount is above this; rooms drop broadcasts past it. */
  readonly maxBufferedAmount: number;
  /** Reading resumes once bufferedAmount is back to this. */
  private readonly resumeAt: number;
  private readHold = 0;

  // Inflation budget: a token bucket in inflated bytes, refilled at maxInflateRate per second.
  private readonly inflateRate: number;
  private readonly inflateBurst: number;
  private inflateTokens: number;
  private inflateStamp = 0;
  private budgetTimer: NodeJS.Timeout | undefined;

  // Incoming message being assembled.
  private messageBinary = false;
  private messageCompressed = false;
  private messagePieces: Buffer[] = [];
  private messageLength = 0;

  // Outgoing frames waiting behind a compression job.
  private queue: QueuedFrame[] = [];
  private queuedBytes = 0;
  private compressing = false;
  private needDrain = false;

  // Close handshake.
  private closeFrameSent = false;
  private closeFrameReceived = false;
  private closeQueued = false;
  private receivedCode: number = CloseCode.Abnormal;
  private receivedReason = "";
  private closeTimer: NodeJS.Timeout | undefined;

  // Heartbeat.
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  /** Payload of the outstanding heartbeat ping: only a pong that echoes it counts. */
  private pingPayload: Buffer = EMPTY;

  /** @internal Use acceptWebSocket(). */
  constructor(socket: Duplex, settings: ConnectionSettings) {
    super();
    this.socket = socket;
    this.protocol = settings.protocol;
    this.extensions = settings.deflate?.response ?? "";
    this.deflate = settings.deflate === null ? null : new PerMessageDeflate(settings.deflate);
    this.maxPayload = settings.maxPayload;
    this.highWaterMark = settings.highWaterMark;
    this.maxBufferedAmount = settings.maxBufferedAmount;
    this.resumeAt = Math.min(settings.highWaterMark, settings.maxBufferedAmount);
    this.inflateRate = settings.maxInflateRate;
    this.inflateBurst = Math.max(settings.maxInflateRate, settings.maxPayload);
    this.inflateTokens = this.inflateBurst;
    this.closeTimeoutMs = settings.closeTimeoutMs;
    this.heartbeat = settings.heartbeat;
    this.parser = new FrameParser(this, { maxPayload: settings.maxPayload, rsv1Allowed: settings.deflate !== null });

    this.onSocketData = this.onSocketData.bind(this);
    this.onSocketEnd = this.onSocketEnd.bind(this);
    this.onSocketError = this.onSocketError.bind(this);
    this.onSocketClose = this.onSocketClose.bind(this);
    this.onSocketDrain = this.onSocketDrain.bind(this);
    this.onFlushed = this.onFlushed.bind(this);
    this.onCompressed = this.onCompressed.bind(this);
    this.onInflated = this.onInflated.bind(this);
    this.onCloseTimeout = this.onCloseTimeout.bind(this);
    this.onHeartbeat = this.onHeartbeat.bind(this);
    this.onPongTimeout = this.onPongTimeout.bind(this);
    this.onBudgetRefilled = this.onBudgetRefilled.bind(this);

    socket.on("data", this.onSocketData);
    socket.on("end", this.onSocketEnd);
    socket.on("error", this.onSocketError);
    socket.on("close", this.onSocketClose);
    socket.on("drain", this.onSocketDrain);
    if (this.heartbeat !== undefined) {
      this.heartbeatTimer = setInterval(this.onHeartbeat, this.heartbeat.intervalMs);
      this.heartbeatTimer.unref();
    }
  }

  /** @internal Feed the bytes that arrived with the upgrade request. */
  receive(head: Buffer): void {
    this.parser.push(head);
  }

  get readyState(): ReadyState {
    return this.state;
  }

  /** Bytes accepted by send() and not yet handed to the operating system. */
  get bufferedAmount(): number {
    return this.socket.writableLength + this.queuedBytes;
  }

  /**
   * Whether the connection is not reading from its socket now: an inflation is in progress,
   * bufferedAmount is above maxBufferedAmount, or the inflation budget is spent.
   */
  get isPaused(): boolean {
    return this.readHold !== 0;
  }

  // ---------------------------------------------------------------- sending

  /**
   * Send a text (string) or binary (bytes) message. Returns false when bufferedAmount is above
   * the high-water mark: wait for 'drain' before sending more. After close(), nothing is sent
   * and the callback gets an error.
   */
  send(data: string | Uint8Array, callback?: SendCallback): boolean {
    if (this.state !== ReadyState.OPEN) {
      notOpen(callback);
      return false;
    }
    if (typeof data === "string") {
      if (this.deflate === null && this.queue.length === 0) {
        this.socket.write(encodeTextFrame(data), callback ?? this.onFlushed);
        this.checkReadLimit();
        return this.checkHighWater();
      }
      return this.sendBytes(Opcode.Text, Buffer.from(data, "utf8"), callback);
    }
    return this.sendBytes(Opcode.Binary, data, callback);
  }

  /** @internal Send an already encoded message (rooms encode a broadcast once). */
  sendBytes(opcode: number, payload: Uint8Array, callback?: SendCallback): boolean {
    if (this.state !== ReadyState.OPEN) {
      notOpen(callback);
      return false;
    }
    const compress = this.deflate !== null && this.deflate.shouldCompress(payload.byteLength);
    if (compress || this.compressing || this.queue.length > 0) {
      this.enqueue(opcode, payload, compress, callback);
    } else {
      this.writeFrame(opcode, false, payload, callback);
    }
    return this.checkHighWater();
  }

  /** Send a ping (payload ≤ 125 bytes). */
  ping(data: string | Uint8Array = EMPTY, callback?: SendCallback): void {
    this.sendControl(Opcode.Ping, data, callback);
  }

  /** Send an unsolicited pong (payload ≤ 125 bytes). */
  pong(data: string | Uint8Array = EMPTY, callback?: SendCallback): void {
    this.sendControl(Opcode.Pong, data, callback);
  }

  /**
   * Start the closing handshake: queued messages go first, then the close frame; the socket is
   * ended when the peer answers, or destroyed after closeTimeoutMs.
   */
  close(code: number = CloseCode.Normal, reason = ""): void {
    if (!isValidWireCloseCode(code)) throw new RangeError(`invalid close code ${code}`);
    if (Buffer.byteLength(reason) > MAX_CONTROL_PAYLOAD - 2) throw new RangeError("close reason over 123 bytes");
    if (this.state === ReadyState.CLOSED || this.closeQueued) return;
    this.state = ReadyState.CLOSING;
    this.queueClose(code, reason);
  }

  /** Destroy the connection at once, without a closing handshake (the close event reports 1006). */
  terminate(): void {
    if (this.state === ReadyState.CLOSED) return;
    this.state = ReadyState.CLOSING;
    this.parser.stop();
    this.socket.destroy();
  }

  private sendControl(opcode: number, data: string | Uint8Array, callback: SendCallback | undefined): void {
    const payload = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    if (payload.byteLength > MAX_CONTROL_PAYLOAD) throw new RangeError("control frame payload over 125 bytes");
    if (this.state !== ReadyState.OPEN) {
      notOpen(callback);
      return;
    }
    // Control frames may go between messages: no need to wait behind a compression job.
    this.writeFrame(opcode, false, payload, callback);
  }

  private writeFrame(opcode: number, rsv1: boolean, payload: Uint8Array, callback: SendCallback | undefined): void {
    const socket = this.socket;
    if (socket.destroyed || socket.writableEnded) {
      notOpen(callback);
      return;
    }
    const frame = encodeFrame(opcode, rsv1, payload);
    if (frame.length === 1) {
      socket.write(frame[0], callback ?? this.onFlushed);
    } else {
      socket.cork();
      socket.write(frame[0]);
      socket.write(frame[1], callback ?? this.onFlushed);
      socket.uncork();
    }
    this.checkReadLimit();
  }

  private enqueue(opcode: number, payload: Uint8Array, compress: boolean, callback: SendCallback | undefined): void {
    this.queue.push({ opcode, payload, compress, callback });
    this.queuedBytes += payload.byteLength;
    if (!this.compressing) this.flushQueue();
    this.checkReadLimit();
  }

  /** Write queued frames in order until one needs compressing (its callback continues). */
  private flushQueue(): void {
    while (this.queue.length > 0 && !this.compressing) {
      const next = this.queue[0]!;
      if (next.compress) {
        this.compressing = true;
        this.deflate!.compress(next.payload, this.onCompressed);
        return;
      }
      this.queue.shift();
      this.queuedBytes -= next.payload.byteLength;
      if (next.opcode === Opcode.Close) this.writeCloseFrame(next.payload);
      else this.writeFrame(next.opcode, false, next.payload, next.callback);
    }
    this.checkDrain();
  }

  private onCompressed(error: Error | null, data: Buffer | null): void {
    this.compressing = false;
    const entry = this.queue.shift();
    if (entry === undefined) return; // the connection failed meanwhile and dropped the queue
    this.queuedBytes -= entry.payload.byteLength;
    if (error !== null || data === null) {
      entry.callback?.(error);
      this.failConnection(CloseCode.InternalError, "compression failed");
      return;
    }
    this.writeFrame(entry.opcode, true, data, entry.callback);
    this.flushQueue();
  }

  private checkHighWater(): boolean {
    if (this.bufferedAmount <= this.highWaterMark) return true;
    this.needDrain = true;
    return false;
  }

  private checkDrain(): void {
    if (this.needDrain && this.bufferedAmount <= this.highWaterMark && this.state === ReadyState.OPEN) {
      this.needDrain = false;
      this.emit("drain");
    }
    // After 'drain' (its listeners may have sent more): read again if the buffer stayed low.
    if ((this.readHold & Hold.Buffered) !== 0 && this.bufferedAmount <= this.resumeAt) this.release(Hold.Buffered);
  }

  // ---------------------------------------------------------------- read holds

  /** Stop reading while the peer leaves more than maxBufferedAmount unread (pongs included). */
  private checkReadLimit(): void {
    if ((this.readHold & Hold.Buffered) !== 0 || this.bufferedAmount <= this.maxBufferedAmount) return;
    this.hold(Hold.Buffered);
    // Something must call checkDrain() once the buffer is flushed: the socket's 'drain' comes
    // only if it asked for one, and the last write may carry the caller's callback, not ours.
    const socket = this.socket;
    if (!socket.writableNeedDrain && !socket.writableEnded && !socket.destroyed) socket.write(EMPTY, this.onFlushed);
  }

  private hold(reason: Hold): void {
    if (this.readHold === 0) {
      this.parser.pause();
      this.socket.pause();
    }
    this.readHold |= reason;
  }

  private release(reason: Hold): void {
    if ((this.readHold & reason) === 0) return;
    this.readHold &= ~reason;
    if (this.readHold !== 0 || this.parser.stopped) return;
    this.socket.resume();
    this.parser.resume();
  }

  /** Charge an inflated message to the budget; when it is spent, hold reading until it refills. */
  private chargeInflation(bytes: number): void {
    const now = performance.now();
    const refill = this.inflateStamp === 0 ? 0 : ((now - this.inflateStamp) * this.inflateRate) / 1000;
    this.inflateStamp = now;
    this.inflateTokens = Math.min(this.inflateBurst, this.inflateTokens + refill) - bytes;
    if (this.inflateTokens >= 0 || this.budgetTimer !== undefined) return;
    this.hold(Hold.InflateBudget);
    this.budgetTimer = setTimeout(this.onBudgetRefilled, Math.ceil((-this.inflateTokens * 1000) / this.inflateRate));
    this.budgetTimer.unref();
  }

  private stopInflationBudget(): void {
    if (this.budgetTimer !== undefined) clearTimeout(this.budgetTimer);
    this.budgetTimer = undefined;
    this.release(Hold.InflateBudget);
  }

  private onBudgetRefilled(): void {
    this.budgetTimer = undefined;
    this.release(Hold.InflateBudget);
  }

  private onFlushed(): void {
    this.checkDrain();
  }

  private onSocketDrain(): void {
    this.checkDrain();
  }

  // ---------------------------------------------------------------- closing

  private queueClose(code: number, reason: string): void {
    this.closeQueued = true;
    // Messages from now on are dropped unread (deliver), so none is inflated or charged: a spent
    // budget no longer holds reading, and the peer's close frame (or its end of the stream) is
    // seen at once instead of after the refill or closeTimeoutMs.
    this.stopInflationBudget();
    const payload = closePayload(code, reason);
    if (this.compressing || this.queue.length > 0) {
      this.queue.push({ opcode: Opcode.Close, payload, compress: false, callback: undefined });
      this.queuedBytes += payload.byteLength;
    } else {
      this.writeCloseFrame(payload);
    }
  }

  private writeCloseFrame(payload: Uint8Array): void {
    if (this.closeFrameSent) return;
    this.closeFrameSent = true;
    this.writeFrame(Opcode.Close, false, payload, undefined);
    if (this.closeFrameReceived) this.socket.end();
    this.armCloseTimer();
  }

  private armCloseTimer(): void {
    if (this.closeTimer !== undefined || this.socket.destroyed) return;
    this.closeTimer = setTimeout(this.onCloseTimeout, this.closeTimeoutMs);
    this.closeTimer.unref();
  }

  private onCloseTimeout(): void {
    this.socket.destroy();
  }

  /** _Fail the WebSocket Connection_ (§7.1.7): close frame with the code, stop reading, end. */
  private failConnection(code: number, reason: string): void {
    this.parser.stop();
    const queue = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const entry of queue) if (entry.callback !== undefined) notOpen(entry.callback);
    if (this.state === ReadyState.OPEN) this.state = ReadyState.CLOSING;
    this.closeQueued = true;
    if (!this.closeFrameSent) {
      this.closeFrameSent = true;
      this.writeFrame(Opcode.Close, false, closePayload(code, reason), undefined);
    }
    if (!this.socket.writableEnded) this.socket.end();
    this.armCloseTimer();
    if (this.listenerCount("error") > 0) {
      const error = new Error(reason) as Error & { closeCode?: number };
      error.closeCode = code;
      this.emit("error", error);
    }
  }

  // ---------------------------------------------------------------- receiving (FrameSink)

  /** @internal */
  onMessageStart(binary: boolean, compressed: boolean): void {
    this.messageBinary = binary;
    this.messageCompressed = compressed;
    this.messagePieces = [];
    this.messageLength = 0;
    if (!binary && !compressed) this.utf8.reset();
  }

  /** @internal */
  onMessageData(piece: Buffer): void {
    if (this.state !== ReadyState.OPEN) return; // dropped at its end: nothing to keep
    if (!this.messageBinary && !this.messageCompressed && !this.utf8.update(piece)) {
      // Fail fast: the rest of the message is not waited for.
      this.failConnection(CloseCode.InvalidPayload, "invalid UTF-8 in a text message");
      return;
    }
    this.messagePieces.push(piece);
    this.messageLength += piece.length;
  }

  /** @internal */
  onMessageEnd(): void {
    const pieces = this.messagePieces;
    this.messagePieces = [];
    // After our close frame a message is dropped (deliver): not inflated, not charged.
    if (this.state !== ReadyState.OPEN) return;
    if (this.messageCompressed) {
      // Inflation is async: hold further frames (and the socket) until it is done, in order.
      this.hold(Hold.Inflating);
      this.deflate!.decompress(pieces, this.maxPayload, this.onInflated);
      return;
    }
    const data = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, this.messageLength);
    if (this.messageBinary) {
      this.deliver(data, true);
    } else if (!this.utf8.finish()) {
      this.failConnection(CloseCode.InvalidPayload, "text message ends inside a UTF-8 sequence");
    } else {
      this.deliver(data, false);
    }
  }

  private onInflated(error: Error | null, data: Buffer | null): void {
    if (this.state === ReadyState.CLOSED) return;
    if (error !== null || data === null) {
      const tooBig = error instanceof MessageTooBigError;
      this.failConnection(tooBig ? CloseCode.MessageTooBig : CloseCode.InvalidPayload, tooBig ? "message too big" : "invalid compressed data");
      return;
    }
    if (!this.messageBinary && !isUtf8(data)) {
      this.failConnection(CloseCode.InvalidPayload, "invalid UTF-8 in a text message");
      return;
    }
    // Charged only while open: a message finishing after close() is dropped (deliver), and the
    // debt would hold reading again (stopInflationBudget).
    if (this.state === ReadyState.OPEN) this.chargeInflation(data.length);
    this.deliver(data, this.messageBinary);
    this.release(Hold.Inflating);
  }

  private deliver(data: Buffer, binary: boolean): void {
    // Messages that arrive after our close frame are dropped (§5.5.1: the peer may still be
    // sending; the application asked to stop).
    if (this.state !== ReadyState.OPEN) return;
    if (binary) this.emit("message", data, true);
    else this.emit("message", data.toString("utf8"), false);
  }

  /** @internal */
  onControlFrame(opcode: number, payload: Buffer): void {
    if (opcode === Opcode.Ping) {
      if (this.state === ReadyState.OPEN) this.writeFrame(Opcode.Pong, false, payload, undefined);
      this.emit("ping", payload);
    } else if (opcode === Opcode.Pong) {
      // Only the answer to our outstanding ping proves the peer reads: a blind pong does not.
      if (this.pongTimer !== undefined && payload.equals(this.pingPayload)) {
        clearTimeout(this.pongTimer);
        this.pongTimer = undefined;
      }
      this.emit("pong", payload);
    } else {
      this.onCloseFrame(payload);
    }
  }

  private onCloseFrame(payload: Buffer): void {
    let code: number = CloseCode.NoStatus;
    let reason = "";
    if (payload.length === 1) {
      this.failConnection(CloseCode.ProtocolError, "close frame payload of one byte");
      return;
    }
    if (payload.length >= 2) {
      code = payload.readUInt16BE(0);
      if (!isValidWireCloseCode(code)) {
        this.failConnection(CloseCode.ProtocolError, `invalid close code ${code}`);
        return;
      }
      const reasonBytes = payload.subarray(2);
      if (!isUtf8(reasonBytes)) {
        this.failConnection(CloseCode.InvalidPayload, "close reason is not valid UTF-8");
        return;
      }
      reason = reasonBytes.toString("utf8");
    }
    this.parser.stop(); // nothing after a close frame is read (§5.5.1)
    this.closeFrameReceived = true;
    this.receivedCode = code;
    this.receivedReason = reason;
    if (this.state === ReadyState.OPEN) this.state = ReadyState.CLOSING;
    if (this.closeFrameSent) {
      this.socket.end();
    } else if (!this.closeQueued) {
      // Echo the peer's code (§5.5.1); an empty close is answered with an empty close.
      this.closeQueued = true;
      const echo = code === CloseCode.NoStatus ? EMPTY : closePayload(code, "");
      if (this.compressing || this.queue.length > 0) {
        this.queue.push({ opcode: Opcode.Close, payload: echo, compress: false, callback: undefined });
        this.queuedBytes += echo.byteLength;
      } else {
        this.writeCloseFrame(echo);
      }
    }
    this.armCloseTimer();
  }

  /** @internal */
  onProtocolError(code: number, reason: string): void {
    this.failConnection(code, reason);
  }

  // ---------------------------------------------------------------- heartbeat

  private onHeartbeat(): void {
    if (this.state !== ReadyState.OPEN || this.pongTimer !== undefined) return;
    this.pingPayload = randomBytes(8); // unguessable: a peer must read the ping to answer it
    this.writeFrame(Opcode.Ping, false, this.pingPayload, undefined);
    this.pongTimer = setTimeout(this.onPongTimeout, this.heartbeat!.timeoutMs);
    this.pongTimer.unref();
  }

  private onPongTimeout(): void {
    this.pongTimer = undefined;
    this.terminate(); // a dead peer would never finish a closing handshake
  }

  // ---------------------------------------------------------------- socket events

  private onSocketData(chunk: Buffer): void {
    this.parser.push(chunk);
  }

  private onSocketEnd(): void {
    // The peer half-closed: finish our side too (the socket may allow half-open).
    this.parser.stop();
    if (this.state === ReadyState.OPEN) this.state = ReadyState.CLOSING;
    if (!this.socket.writableEnded) this.socket.end();
    this.armCloseTimer();
  }

  private onSocketError(error: Error): void {
    if (this.listenerCount("error") > 0) this.emit("error", error);
    this.socket.destroy();
  }

  private onSocketClose(): void {
    this.state = ReadyState.CLOSED;
    this.parser.stop();
    if (this.closeTimer !== undefined) clearTimeout(this.closeTimer);
    if (this.heartbeatTimer !== undefined) clearInterval(this.heartbeatTimer);
    if (this.pongTimer !== undefined) clearTimeout(this.pongTimer);
    if (this.budgetTimer !== undefined) clearTimeout(this.budgetTimer);
    this.closeTimer = this.heartbeatTimer = this.pongTimer = this.budgetTimer = undefined;
    this.deflate?.close();
    const queue = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    for (const entry of queue) if (entry.callback !== undefined) notOpen(entry.callback);
    this.socket.removeListener("data", this.onSocketData);
    this.socket.removeListener("drain", this.onSocketDrain);
    this.emit("close", this.closeFrameReceived ? this.receivedCode : CloseCode.Abnormal, this.receivedReason);
  }
}

function closePayload(code: number, reason: string): Buffer {
  const length = Buffer.byteLength(reason);
  const payload = Buffer.allocUnsafe(2 + length);
  payload.writeUInt16BE(code, 0);
  if (length > 0) payload.write(reason, 2, "utf8");
  return payload;
}
