// Server-to-client frames (RFC 6455 §5.2): never masked, one frame per message. Small frames
// are built as one buffer (one write); large payloads go out as header + payload under cork,
// so the payload is never copied. Text is encoded straight into the frame buffer.

/** Payloads up to this size share one buffer with their header. */
const COALESCE_LIMIT = 16 * 1024;

export function headerLength(payloadLength: number): number {
  return payloadLength < 126 ? 2 : payloadLength < 0x10000 ? 4 : 10;
}

/** Write the frame header at the start of `target`; returns its length. */
export function writeHeader(target: Buffer, opcode: number, fin: boolean, rsv1: boolean, payloadLength: number): number {
  target[0] = (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode;
  if (payloadLength < 126) {
    target[1] = payloadLength;
    return 2;
  }
  if (payloadLength < 0x10000) {
    target[1] = 126;
    target.writeUInt16BE(payloadLength, 2);
    return 4;
  }
  target[1] = 127;
  target.writeUInt32BE(Math.floor(payloadLength / 0x100000000), 2);
  target.writeUInt32BE(payloadLength >>> 0, 6);
  return 10;
}

/**
 * A complete frame as one or two buffers. Small payloads are copied next to the header;
 * for large ones the second buffer is the caller's payload itself.
 */
export function encodeFrame(opcode: number, rsv1: boolean, payload: Uint8Array): [Buffer] | [Buffer, Uint8Array] {
  const length = payload.byteLength;
  const h = headerLength(length);
  if (length <= COALESCE_LIMIT) {
    const frame = Buffer.allocUnsafe(h + length);
    writeHeader(frame, opcode, true, rsv1, length);
    frame.set(payload, h);
    return [frame];
  }
  const header = Buffer.allocUnsafe(h);
  writeHeader(header, opcode, true, rsv1, length);
  return [header, payload];
}

/** A text frame encoded directly from the string (one allocation, no intermediate Buffer). */
export function encodeTextFrame(text: string): Buffer {
  const length = Buffer.byteLength(text, "utf8");
  const h = headerLength(length);
  const frame = Buffer.allocUnsafe(h + length);
  writeHeader(frame, 0x1, true, false, length);
  frame.write(text, h, "utf8");
  return frame;
}
