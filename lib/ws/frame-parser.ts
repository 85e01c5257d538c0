// Streaming parser of client-to-server frames (RFC 6455 §5). Input arrives in chunks of any
// size (down to one byte); headers are read through a small scratch buffer, payloads are
// unmasked in place and handed on as views of the received chunks (never re-joined here).
// Every §5 rule that a single frame or the frame sequence can break is checked here, before
// any payload byte is passed on; what a message means (UTF-8, inflation) is the sink's job.
import { CloseCode, MAX_CONTROL_PAYLOAD, Opcode } from "./constants.js";

/** What the parser reports to. Methods on one object: no closure per frame. */
export interface FrameSink {
  /** A data message starts (its first frame's header is valid). */
  onMessageStart(binary: boolean, compressed: boolean): void;
  /** Unmasked payload bytes of the open message; a view valid until the sink returns (copy or keep it). */
  onMessageData(piece: Buffer): void;
  /** The frame with FIN ended. */
  onMessageEnd(): void;
  /** A complete control frame (close, ping, pong), payload unmasked. */
  onControlFrame(opcode: number, payload: Buffer): void;
  /** The peer broke the protocol; the parser has stopped. */
  onProtocolError(code: number, reason: string): void;
}

export interface FrameParserOptions {
  /** Largest message (sum of its frames' payloads) and so largest frame; bigger → 1009. */
  maxPayload: number;
  /** Whether RSV1 may mark a compressed message (permessage-deflate negotiated). */
  rsv1Allowed: boolean;
}

const enum State {
  Header,
  Length16,
  Length64,
  Mask,
  Payload,
  Stopped,
}

const EMPTY = Buffer.alloc(0);

export class FrameParser {
  private readonly sink: FrameSink;
  private readonly maxPayload: number;
  private readonly rsv1Allowed: boolean;

  private chunks: Buffer[] = [];
  private buffered = 0;
  private state = State.Header;
  private paused = false;
  private looping = false;

  // Current frame.
  private fin = false;
  private opcode = 0;
  private masked = false;
  private payloadLength = 0;
  private remaining = 0;
  private readonly mask = Buffer.alloc(4);
  private maskOffset = 0;
  private readonly scratch = Buffer.alloc(8);
  /** Control frame payload collected across chunks (≤125 bytes). */
  private controlPieces: Buffer[] = [];

  // Current message.
  private messageOpen = false;
  private messageLength = 0;

  constructor(sink: FrameSink, options: FrameParserOptions) {
    this.sink = sink;
    this.maxPayload = options.maxPayload;
    this.rsv1Allowed = options.rsv1Allowed;
  }

  /** Feed bytes from the socket. */
  push(chunk: Buffer): void {
    if (this.state === State.Stopped || chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.loop();
  }

  /** Stop handing out frames until resume() (the sink waits for async work, e.g. inflation). */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.loop();
  }

  /** Drop everything: nothing more is parsed (after a close frame or a failure). */
  stop(): void {
    this.state = State.Stopped;
    this.chunks = [];
    this.buffered = 0;
    this.controlPieces = [];
  }

  get stopped(): boolean {
    return this.state === State.Stopped;
  }

  private loop(): void {
    if (this.looping) return; // re-entered from a sink callback: the outer loop continues
    this.looping = true;
    try {
      while (!this.paused) {
        let progressed: boolean;
        switch (this.state) {
          case State.Header:
            progressed = this.readHeader();
            break;
          case State.Length16:
            progressed = this.readLength16();
            break;
          case State.Length64:
            progressed = this.readLength64();
            break;
          case State.Mask:
            progressed = this.readMask();
            break;
          case State.Payload:
            progressed = this.readPayload();
            break;
          default:
            progressed = false;
        }
        if (!progressed) break;
      }
    } finally {
      this.looping = false;
    }
  }

  /** Copy the next `n` (≤ 8) bytes into the scratch buffer and consume them. */
  private take(n: number): Buffer {
    let copied = 0;
    while (copied < n) {
      const head = this.chunks[0]!;
      const want = n - copied;
      if (head.length <= want) {
        head.copy(this.scratch, copied);
        copied += head.length;
        this.chunks.shift();
      } else {
        head.copy(this.scratch, copied, 0, want);
        copied += want;
        this.chunks[0] = head.subarray(want);
      }
    }
    this.buffered -= n;
    return this.scratch;
  }

  private fail(code: number, reason: string): false {
    this.stop();
    this.sink.onProtocolError(code, reason);
    return false;
  }

  private readHeader(): boolean {
    if (this.buffered < 2) return false;
    const b = this.take(2);
    const b0 = b[0]!;
    const b1 = b[1]!;
    this.fin = (b0 & 0x80) !== 0;
    const rsv1 = (b0 & 0x40) !== 0;
    const opcode = b0 & 0x0f;
    this.opcode = opcode;
    this.masked = (b1 & 0x80) !== 0;
    const length7 = b1 & 0x7f;

    if ((b0 & 0x30) !== 0) return this.fail(CloseCode.ProtocolError, "RSV2 and RSV3 must be clear");
    const control = opcode >= 0x8;
    if (control) {
      if (opcode !== Opcode.Close && opcode !== Opcode.Ping && opcode !== Opcode.Pong) {
        return this.fail(CloseCode.ProtocolError, `unknown opcode ${opcode}`);
      }
      if (rsv1) return this.fail(CloseCode.ProtocolError, "RSV1 must be clear on a control frame");
      if (!this.fin) return this.fail(CloseCode.ProtocolError, "control frames must not be fragmented");
      if (length7 > MAX_CONTROL_PAYLOAD) return this.fail(CloseCode.ProtocolError, "control frame payload over 125 bytes");
    } else if (opcode === Opcode.Continuation) {
      if (!this.messageOpen) return this.fail(CloseCode.ProtocolError, "continuation frame without a message to continue");
      if (rsv1) return this.fail(CloseCode.ProtocolError, "RSV1 must be clear on a continuation frame");
    } else if (opcode === Opcode.Text || opcode === Opcode.Binary) {
      if (this.messageOpen) return this.fail(CloseCode.ProtocolError, "new data frame while a fragmented message is open");
      if (rsv1 && !this.rsv1Allowed) return this.fail(CloseCode.ProtocolError, "RSV1 set without a negotiated extension");
    } else {
      return this.fail(CloseCode.ProtocolError, `unknown opcode ${opcode}`);
    }
    // Client frames are always masked (§5.1); checked after the opcode so that a frame with
    // two faults reports the same code either way.
    if (!this.masked) return this.fail(CloseCode.ProtocolError, "client frames must be masked");

    if (!control && opcode !== Opcode.Continuation) {
      this.messageOpen = true;
      this.messageLength = 0;
      this.pendingStart = true;
      this.pendingBinary = opcode === Opcode.Binary;
      this.pendingCompressed = rsv1;
    }

    if (length7 === 126) this.state = State.Length16;
    else if (length7 === 127) this.state = State.Length64;
    else return this.lengthKnown(length7);
    return true;
  }

  // The message start is announced once the first frame's length is known to fit.
  private pendingStart = false;
  private pendingBinary = false;
  private pendingCompressed = false;

  private readLength16(): boolean {
    if (this.buffered < 2) return false;
    return this.lengthKnown(this.take(2).readUInt16BE(0));
  }

  private readLength64(): boolean {
    if (this.buffered < 8) return false;
    const b = this.take(8);
    const high = b.readUInt32BE(0);
    if (high & 0x80000000) return this.fail(CloseCode.ProtocolError, "64-bit payload length with the most significant bit set");
    // Anything at or above 2^53 is far beyond any maxPayload; keep the arithmetic exact below it.
    if (high > 0x1fffff) return this.fail(CloseCode.MessageTooBig, "frame exceeds the maximum payload size");
    return this.lengthKnown(high * 0x100000000 + b.readUInt32BE(4));
  }

  private lengthKnown(length: number): boolean {
    const control = this.opcode >= 0x8;
    if (!control && this.messageLength + length > this.maxPayload) {
      return this.fail(CloseCode.MessageTooBig, "message exceeds the maximum payload size");
    }
    this.payloadLength = length;
    this.remaining = length;
    this.state = State.Mask;
    return true;
  }

  private readMask(): boolean {
    if (this.buffered < 4) return false;
    this.take(4).copy(this.mask, 0, 0, 4);
    this.maskOffset = 0;
    this.state = State.Payload;
    if (this.opcode < 0x8) {
      this.messageLength += this.payloadLength;
      if (this.pendingStart) {
        this.pendingStart = false;
        this.sink.onMessageStart(this.pendingBinary, this.pendingCompressed);
        if (this.state !== State.Payload) return false; // the sink stopped us
      }
    }
    return true;
  }

  private readPayload(): boolean {
    const control = this.opcode >= 0x8;
    while (this.remaining > 0) {
      if (this.buffered === 0) return false;
      const head = this.chunks[0]!;
      let piece: Buffer;
      if (head.length <= this.remaining) {
        piece = head;
        this.chunks.shift();
      } else {
        piece = head.subarray(0, this.remaining);
        this.chunks[0] = head.subarray(this.remaining);
      }
      this.buffered -= piece.length;
      this.remaining -= piece.length;
      this.unmask(piece);
      if (control) {
        this.controlPieces.push(piece);
      } else {
        this.sink.onMessageData(piece);
        if (this.state !== State.Payload) return false; // stopped by the sink (bad UTF-8)
      }
    }
    this.state = State.Header;
    if (control) {
      const pieces = this.controlPieces;
      const payload = pieces.length === 0 ? EMPTY : pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
      this.controlPieces = [];
      this.sink.onControlFrame(this.opcode, payload);
    } else if (this.fin) {
      this.messageOpen = false;
      this.sink.onMessageEnd();
    }
    return (this.state as State) !== State.Stopped; // a sink callback may have stopped us
  }

  private unmask(piece: Buffer): void {
    const mask = this.mask;
    let offset = this.maskOffset;
    const length = piece.length;
    let i = 0;
    // Bring the mask to offset 0, then XOR four bytes at a time.
    while (i < length && offset !== 0) {
      piece[i] = piece[i]! ^ mask[offset]!;
      offset = (offset + 1) & 3;
      i++;
    }
    const m0 = mask[0]!;
    const m1 = mask[1]!;
    const m2 = mask[2]!;
    const m3 = mask[3]!;
    for (const end = length - 3; i < end; i += 4) {
      piece[i] = piece[i]! ^ m0;
      piece[i + 1] = piece[i + 1]! ^ m1;
      piece[i + 2] = piece[i + 2]! ^ m2;
      piece[i + 3] = piece[i + 3]! ^ m3;
    }
    while (i < length) {
      piece[i] = piece[i]! ^ mask[offset]!;
      offset = (offset + 1) & 3;
      i++;
    }
    this.maskOffset = offset;
  }
}
