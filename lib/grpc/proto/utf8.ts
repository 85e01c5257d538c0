// Strict UTF-8 for protobuf `string` fields: proto3 requires valid UTF-8 on both sides.
import { ProtobufDecodeError, ProtobufEncodeError } from "./errors.js";

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decode bytes[start, end) or fail on invalid UTF-8 (no silent U+FFFD). */
export function decodeUtf8(bytes: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) return end - start < 64 ? String.fromCharCode(...bytes.subarray(start, end)) : Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString("latin1");
  try {
    return strictDecoder.decode(bytes.subarray(start, end));
  } catch {
    throw new ProtobufDecodeError("string field is not valid UTF-8");
  }
}

// A lone surrogate cannot be encoded as UTF-8 (Buffer would replace it silently).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function checkEncodableString(s: string, path: string): void {
  if (LONE_SURROGATE.test(s)) throw new ProtobufEncodeError(path, "string contains a lone surrogate (not valid UTF-8)");
}
