// Protocol constants of RFC 6455: opcodes, close codes, ready states.

/** The GUID the server appends to Sec-WebSocket-Key before hashing (RFC 6455 §1.3). */
export const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

export const Opcode = {
  Continuation: 0x0,
  Text: 0x1,
  Binary: 0x2,
  Close: 0x8,
  Ping: 0x9,
  Pong: 0xa,
} as const;

/** Close status codes (RFC 6455 §7.4.1). 1005, 1006 and 1015 are never sent on the wire. */
export const CloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  ProtocolError: 1002,
  UnsupportedData: 1003,
  NoStatus: 1005,
  Abnormal: 1006,
  InvalidPayload: 1007,
  PolicyViolation: 1008,
  MessageTooBig: 1009,
  MandatoryExtension: 1010,
  InternalError: 1011,
  /** IANA-registered after RFC 6455 (as 1013 and 1014): the server restarts; reconnect. */
  ServiceRestart: 1012,
  TryAgainLater: 1013,
  BadGateway: 1014,
  TlsHandshake: 1015,
} as const;

export const ReadyState = {
  CONNECTING: 0,
  OPEN: 1,
  CLOSING: 2,
  CLOSED: 3,
} as const;
export type ReadyState = (typeof ReadyState)[keyof typeof ReadyState];

/**
 * A code that may travel in a close frame, either way: 1000-1003, 1007-1014, 3000-4999.
 * 1012-1014 are in IANA's registry, not in RFC 6455; they are accepted as `ws` and browsers do.
 * 1004 is reserved, 1005/1006/1015 are local-only pseudo codes, the rest is unassigned.
 */
export function isValidWireCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/** Largest payload of a control frame (RFC 6455 §5.5). */
export const MAX_CONTROL_PAYLOAD = 125;
