// Batch buffers live in shared memory (a SharedArrayBuffer): the export worker reads a batch where
// it lies, so nothing is copied or transferred, and a batch whose POST the worker was making when
// it died is still here to be sent again (see worker-transport.ts). The memory starts zeroed.
import { Buffer } from "node:buffer";

/** A Buffer of `size` bytes over a SharedArrayBuffer of its own. */
export function sharedBytes(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/** True when `buf` is the whole of a SharedArrayBuffer (as sharedBytes() makes them). */
export function isWholeShared(buf: Buffer): boolean {
  return buf.buffer instanceof SharedArrayBuffer && buf.byteOffset === 0 && buf.buffer.byteLength === buf.length;
}
