// permessage-deflate negotiation, server side (RFC 7692 §5, §7.1). The client's offers are
// tried in order; the first one this server can honour is accepted. An offer with an unknown
// or repeated parameter or an out-of-range value is declined (the connection proceeds without
// compression for that offer); the handshake itself never fails because of this extension.
import type { ExtensionOffer } from "./extension-header.js";

export interface PerMessageDeflateOptions {
  /** Messages smaller than this many bytes are sent uncompressed (default 1024). */
  threshold?: number;
  /** Reset the server's compressor after each message (saves memory, costs ratio). */
  serverNoContextTakeover?: boolean;
  /** Ask the client to reset its compressor after each message (the server's inflater can then be reset too). */
  clientNoContextTakeover?: boolean;
  /** Upper bound of the server's LZ77 window, 9-15 (default 15). */
  serverMaxWindowBits?: number;
  /** Upper bound asked of the client's window, 8-15, applied when the client supports the parameter. */
  clientMaxWindowBits?: number;
  /** zlib compression level 0-9 (default 6). */
  level?: number;
  /** zlib memLevel 1-9 (default 8). */
  memLevel?: number;
}

/** The agreed parameters of one connection. */
export interface DeflateParams {
  serverNoContextTakeover: boolean;
  clientNoContextTakeover: boolean;
  /** Window of the server's compressor (9-15). */
  serverWindowBits: number;
  /** Window the server's inflater needs for the client's messages (9-15; 8 is read with 9). */
  clientWindowBits: number;
  threshold: number;
  level: number;
  memLevel: number;
  /** The Sec-WebSocket-Extensions value of the 101 response. */
  response: string;
}

const WINDOW_BITS = /^(?:8|9|1[0-5])$/;

function checkWindowBits(value: number | undefined, min: number, name: string): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min || value > 15)) {
    throw new RangeError(`permessage-deflate ${name} must be an integer in ${min}..15`);
  }
}

/** Validate the options once (at configuration time). */
export function checkDeflateOptions(options: PerMessageDeflateOptions): void {
  // Node's raw deflate cannot honour 8 (zlib turns it into 9), so the server never promises it.
  checkWindowBits(options.serverMaxWindowBits, 9, "serverMaxWindowBits");
  checkWindowBits(options.clientMaxWindowBits, 8, "clientMaxWindowBits");
  if (options.threshold !== undefined && !(Number.isInteger(options.threshold) && options.threshold >= 0)) {
    throw new RangeError("permessage-deflate threshold must be a non-negative integer");
  }
}

/** The first acceptable permessage-deflate offer, or null (no compression). */
export function negotiateDeflate(offers: readonly ExtensionOffer[], options: PerMessageDeflateOptions): DeflateParams | null {
  for (const offer of offers) {
    if (offer.name !== "permessage-deflate") continue;
    const accepted = acceptOffer(offer, options);
    if (accepted !== null) return accepted;
  }
  return null;
}

function acceptOffer(offer: ExtensionOffer, options: PerMessageDeflateOptions): DeflateParams | null {
  let serverNoContextTakeover = false;
  let clientNoContextTakeover = false;
  let serverMaxWindowBits: number | undefined;
  let clientMaxWindowBits: number | true | undefined;
  const seen = new Set<string>();
  for (const [name, value] of offer.params) {
    if (seen.has(name)) return null; // §7: a repeated parameter makes the offer invalid
    seen.add(name);
    switch (name) {
      case "server_no_context_takeover":
        if (value !== true) return null;
        serverNoContextTakeover = true;
        break;
      case "client_no_context_takeover":
        if (value !== true) return null;
        clientNoContextTakeover = true;
        break;
      case "server_max_window_bits":
        if (value === true || !WINDOW_BITS.test(value)) return null;
        serverMaxWindowBits = Number(value);
        break;
      case "client_max_window_bits":
        if (value !== true && !WINDOW_BITS.test(value)) return null;
        clientMaxWindowBits = value === true ? true : Number(value);
        break;
      default:
        return null; // unknown parameter
    }
  }

  const parts = ["permessage-deflate"];
  // Server side: honour the client's limit, or our own configuration, whichever is stricter.
  if (serverNoContextTakeover || options.serverNoContextTakeover === true) {
    serverNoContextTakeover = true;
    parts.push("server_no_context_takeover");
  }
  if (options.clientNoContextTakeover === true) clientNoContextTakeover = true;
  if (clientNoContextTakeover) parts.push("client_no_context_takeover");
  // A client asking for an 8-bit window cannot be served by zlib's raw deflate: decline.
  if (serverMaxWindowBits === 8) return null;
  let serverWindowBits = options.serverMaxWindowBits ?? 15;
  if (serverMaxWindowBits !== undefined) {
    serverWindowBits = Math.min(serverWindowBits, serverMaxWindowBits);
    parts.push(`server_max_window_bits=${serverWindowBits}`);
  }
  // Client side: we may only limit the client when it announced client_max_window_bits.
  let clientWindowBits = 15;
  if (clientMaxWindowBits !== undefined) {
    const offered = clientMaxWindowBits === true ? 15 : clientMaxWindowBits;
    const wanted = Math.min(offered, options.clientMaxWindowBits ?? 15);
    if (wanted < 15 || clientMaxWindowBits !== true) parts.push(`client_max_window_bits=${wanted}`);
    clientWindowBits = wanted;
  }
  return {
    serverNoContextTakeover,
    clientNoContextTakeover,
    serverWindowBits,
    clientWindowBits: Math.max(clientWindowBits, 9),
    threshold: options.threshold ?? 1024,
    level: options.level ?? 6,
    memLevel: options.memLevel ?? 8,
    response: parts.join("; "),
  };
}
