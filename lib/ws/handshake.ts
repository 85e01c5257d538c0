// The opening handshake, server side (RFC 6455 §4.2). checkUpgradeRequest() decides whether a
// request may upgrade without touching the socket, so a framework can answer a refusal in its
// own error format; acceptWebSocket() (websocket-accept.ts) repeats nothing: the negotiation is
// remembered per request.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isHttpToken } from "../plugin.js";
import { WEBSOCKET_GUID } from "./constants.js";
import { checkDeflateOptions, negotiateDeflate, type DeflateParams, type PerMessageDeflateOptions } from "./deflate-negotiation.js";
import { parseExtensionHeader } from "./extension-header.js";
import type { WebSocketServerOptions } from "./options.js";

/** Why a request may not upgrade: the status, uniform error type and message to answer with. */
export interface UpgradeRefusal {
  status: number;
  type: string;
  message: string;
  headers: Record<string, string>;
}

/** The outcome of a successful negotiation. */
export interface UpgradeAgreement {
  /** Sec-WebSocket-Accept value. */
  accept: string;
  /** The chosen subprotocol, or "" for none. */
  protocol: string;
  deflate: DeflateParams | null;
}

type Negotiation = { refusal: UpgradeRefusal; agreement: null } | { refusal: null; agreement: UpgradeAgreement };

// checkUpgradeRequest() followed by acceptWebSocket() on the same request negotiates once.
const negotiated = new WeakMap<IncomingMessage, { options: WebSocketServerOptions; result: Negotiation }>();

const KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/; // base64 of exactly 16 bytes

/**
 * Validate an upgrade request without touching the socket: null when it may upgrade, else the
 * refusal to answer with (400 malformed, 405 not GET, 426 wrong version, 403 origin refused).
 */
export function checkUpgradeRequest(req: IncomingMessage, options: WebSocketServerOptions = {}): UpgradeRefusal | null {
  return negotiate(req, options).refusal;
}

/** The negotiation for this request (computed once per request and options object). */
export function negotiate(req: IncomingMessage, options: WebSocketServerOptions): Negotiation {
  const cached = negotiated.get(req);
  if (cached !== undefined && cached.options === options) return cached.result;
  const result = computeNegotiation(req, options);
  negotiated.set(req, { options, result });
  return result;
}

/** Sec-WebSocket-Accept for a key. */
export function acceptValue(key: string): string {
  return createHash("sha1").update(key + WEBSOCKET_GUID).digest("base64");
}

function refuse(status: number, type: string, message: string, headers: Record<string, string> = {}): Negotiation {
  return { refusal: { status, type, message, headers }, agreement: null };
}

function headerText(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function hasToken(value: string | undefined, token: string): boolean {
  if (value === undefined) return false;
  for (const part of value.split(",")) if (part.trim().toLowerCase() === token) return true;
  return false;
}

function computeNegotiation(req: IncomingMessage, options: WebSocketServerOptions): Negotiation {
  if (req.method !== "GET") {
    return refuse(405, "method_not_allowed", "A WebSocket upgrade must use GET", { allow: "GET" });
  }
  if (req.httpVersionMajor < 1 || (req.httpVersionMajor === 1 && req.httpVersionMinor < 1)) {
    return refuse(400, "bad_request", "A WebSocket upgrade requires HTTP/1.1");
  }
  if (!hasToken(headerText(req, "upgrade"), "websocket")) {
    return refuse(400, "bad_request", "The Upgrade header must name websocket");
  }
  if (!hasToken(headerText(req, "connection"), "upgrade")) {
    return refuse(400, "bad_request", "The Connection header must contain the upgrade token");
  }
  const version = headerText(req, "sec-websocket-version");
  if (version === undefined || version.trim() !== "13") {
    return refuse(426, "upgrade_required", "Only WebSocket version 13 is supported", { "sec-websocket-version": "13" });
  }
  const key = headerText(req, "sec-websocket-key")?.trim();
  if (key === undefined || !KEY.test(key)) {
    return refuse(400, "bad_request", "Sec-WebSocket-Key must be the base64 of 16 bytes");
  }
  const origin = headerText(req, "origin");
  if (origin === undefined) {
    if (options.allowMissingOrigin === false) return refuse(403, "forbidden", "An Origin header is required");
  } else if (!originAllowed(origin, req, options.origins)) {
    return refuse(403, "forbidden", "Origin not allowed");
  }

  let protocol = "";
  const protocolHeader = headerText(req, "sec-websocket-protocol");
  if (protocolHeader !== undefined) {
    const offered: string[] = [];
    for (const part of protocolHeader.split(",")) {
      const name = part.trim();
      if (!isHttpToken(name) || offered.includes(name)) {
        return refuse(400, "bad_request", "Sec-WebSocket-Protocol must be a list of distinct tokens");
      }
      offered.push(name);
    }
    const chosen = chooseProtocol(offered, req, options.protocols);
    if (chosen !== undefined) protocol = chosen;
  }

  let deflate: DeflateParams | null = null;
  const deflateOptions = deflateOptionsOf(options.perMessageDeflate);
  const extensionHeader = headerText(req, "sec-websocket-extensions");
  if (deflateOptions !== null && extensionHeader !== undefined) {
    const offers = parseExtensionHeader(extensionHeader);
    // A malformed header only costs the client its extensions, not the connection.
    if (offers !== null) deflate = negotiateDeflate(offers, deflateOptions);
  }
  return { refusal: null, agreement: { accept: acceptValue(key), protocol, deflate } };
}

const NO_DEFLATE_OPTIONS: PerMessageDeflateOptions = {};
const checkedDeflateOptions = new WeakSet<PerMessageDeflateOptions>();

function deflateOptionsOf(setting: WebSocketServerOptions["perMessageDeflate"]): PerMessageDeflateOptions | null {
  if (setting === undefined || setting === false) return null;
  if (setting === true) return NO_DEFLATE_OPTIONS;
  if (!checkedDeflateOptions.has(setting)) {
    checkDeflateOptions(setting);
    checkedDeflateOptions.add(setting);
  }
  return setting;
}

function chooseProtocol(offered: string[], req: IncomingMessage, protocols: WebSocketServerOptions["protocols"]): string | undefined {
  if (protocols === undefined) return undefined;
  if (typeof protocols === "function") {
    const chosen = protocols(offered, req);
    // The server may only answer with one of the offered protocols (§4.2.2).
    return typeof chosen === "string" && offered.includes(chosen) ? chosen : undefined;
  }
  for (const name of protocols) if (offered.includes(name)) return name;
  return undefined;
}

/** The serialized origin (`scheme://host[:port]`, lowercase, default port dropped), or null. */
function serializedOrigin(value: string): string | null {
  if (value === "null") return null;
  try {
    const url = new URL(value);
    return url.origin === "null" ? null : url.origin.toLowerCase();
  } catch {
    return null;
  }
}

const originLists = new WeakMap<readonly string[], Set<string>>();

function originAllowed(origin: string, req: IncomingMessage, allowed: WebSocketServerOptions["origins"]): boolean {
  if (allowed === "*") return true;
  if (typeof allowed === "function") return allowed(origin) === true;
  const serialized = serializedOrigin(origin.trim());
  if (serialized === null) return false;
  if (allowed === undefined) {
    // Same origin: the Origin's authority is the Host the request was sent to.
    const host = headerText(req, "host");
    return host !== undefined && serialized.slice(serialized.indexOf("//") + 2) === host.trim().toLowerCase();
  }
  let set = originLists.get(allowed);
  if (set === undefined) {
    set = new Set();
    for (const entry of allowed) {
      const normalized = serializedOrigin(entry);
      if (normalized === null) throw new TypeError(`invalid WebSocket origin in the allow-list: ${entry}`);
      set.add(normalized);
    }
    originLists.set(allowed, set);
  }
  return set.has(serialized);
}
