// gRPC metadata is HTTP/2 headers: lowercase ASCII keys, text values, and binary values under
// keys ending in `-bin`, carried as base64. Incoming metadata becomes a null-prototype map with
// the binary values decoded; outgoing metadata is checked here so a bad key fails in the handler
// that set it, not as a broken stream.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http2";

/** Request metadata: lowercase keys; `-bin` values decoded to Buffers. */
export type IncomingMetadata = Readonly<Record<string, string | Buffer>>;

/** Metadata a handler sends: text values (or several), Buffers under `-bin` keys. */
export type OutgoingMetadata = Readonly<Record<string, string | Buffer | readonly (string | Buffer)[]>>;

// Headers that belong to the protocol, not to the application (grpc-js hides the same ones).
const PROTOCOL_HEADERS: ReadonlySet<string> = new Set([
  "content-type", "te", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "accept-encoding",
  "content-length", "connection", "host",
]);

const KEY = /^[0-9a-z_.-]+$/;
// Printable ASCII without leading/trailing space: what a gRPC text value may hold.
const TEXT_VALUE = /^[\x20-\x7e]*$/;

/**
 * The application metadata of a request. Repeated text headers arrive joined by ", " (HTTP's
 * rule); a repeated `-bin` key keeps its first value.
 */
export function parseIncomingMetadata(headers: IncomingHttpHeaders): IncomingMetadata {
  const metadata: Record<string, string | Buffer> = Object.create(null) as Record<string, string | Buffer>;
  for (const key of Object.keys(headers)) {
    if (key.charCodeAt(0) === 58 /* : */ || PROTOCOL_HEADERS.has(key)) continue;
    const raw = headers[key];
    if (raw === undefined) continue;
    const text = Array.isArray(raw) ? raw.join(", ") : String(raw);
    if (key.endsWith("-bin")) {
      const first = text.split(",")[0]!.trim();
      metadata[key] = Buffer.from(first, "base64");
    } else {
      metadata[key] = text;
    }
  }
  return metadata;
}

/** Whether a key may be set by an application (not a pseudo-header nor a protocol header). */
function checkKey(key: string): void {
  if (!KEY.test(key)) throw new TypeError(`grpc metadata key ${JSON.stringify(key)} must be lowercase [0-9a-z_.-]`);
  if (key.startsWith("grpc-") || PROTOCOL_HEADERS.has(key)) throw new TypeError(`grpc metadata key "${key}" is reserved`);
}

function encodeValue(key: string, value: string | Buffer): string {
  if (key.endsWith("-bin")) {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    // Unpadded base64: the spec's preferred form; every decoder accepts both.
    return bytes.toString("base64").replace(/=+$/, "");
  }
  if (typeof value !== "string") throw new TypeError(`grpc metadata "${key}": a Buffer needs a key ending in -bin`);
  if (!TEXT_VALUE.test(value)) throw new TypeError(`grpc metadata "${key}": text values must be printable ASCII`);
  return value;
}

/** Check `metadata` and add it to `into` as HTTP/2 header values. Throws a TypeError when invalid. */
export function addOutgoingMetadata(into: OutgoingHttpHeaders, metadata: OutgoingMetadata): void {
  for (const key of Object.keys(metadata)) {
    checkKey(key);
    const value = metadata[key]!;
    const values = Array.isArray(value) ? (value as readonly (string | Buffer)[]) : [value as string | Buffer];
    const encoded = values.map((v) => encodeValue(key, v));
    const existing = into[key];
    const before = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
    const all = [...before, ...encoded];
    into[key] = all.length === 1 ? all[0]! : all;
  }
}

/**
 * grpc-message is percent-encoded: bytes outside printable ASCII and `%` itself become %XX of
 * their UTF-8 encoding (PROTOCOL-HTTP2.md, "Status-Message").
 */
export function encodeGrpcMessage(message: string): string {
  let plain = true;
  for (let i = 0; i < message.length; i++) {
    const c = message.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x25) {
      plain = false;
      break;
    }
  }
  if (plain) return message;
  let out = "";
  for (const byte of Buffer.from(message, "utf8")) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
