// JWS compact serialization (RFC 7515 §7.1): parsing into checked parts, and signing.
import { base64urlDecode, base64urlEncode } from "./jws-base64url.js";
import { jwsSign } from "./jws-algorithms.js";
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { checkJwsHeader } from "./jws-header.js";
import type { JwsHeader } from "./jws-header.js";
import type { JwsKey } from "./jwk-key.js";
import { parseJoseObject } from "./jwt-json.js";
import { JwtError } from "./jwt-error.js";

export const DEFAULT_MAX_TOKEN_LENGTH = 8192;

export interface CompactParseOptions {
  readonly algorithms: ReadonlySet<string>;
  readonly maxLength: number;
  /** Accept RFC 7797 `b64:false` (listed in `crit`). Never for JWTs. */
  readonly allowUnencoded: boolean;
  /** Payload for a JWS with detached content (empty payload segment, RFC 7515 App. F). */
  readonly detachedPayload?: Uint8Array | undefined;
}

/** A compact JWS whose header passed the checks; the signature is not verified yet. */
export interface ParsedJws {
  readonly header: JwsHeader;
  readonly alg: JwsAlgorithm;
  readonly kid: string | undefined;
  readonly signingInput: Buffer;
  readonly payload: Buffer;
  readonly signature: Buffer;
}

/**
 * Decoded headers by their base64url segment. A service sees a handful of distinct headers (one
 * per signing key and type) on every token, so decoding and parsing each once saves most of a
 * token's parsing. Bounded: segments up to HEADER_MEMO_MAX_SEGMENT characters, at most
 * HEADER_MEMO_MAX_ENTRIES of them; when full it is emptied (tokens made to fill it only cost the
 * parse they would have cost anyway). Only headers whose members are all strings, numbers,
 * booleans or null are kept, so the shallow copy handed out per token is a full copy: callers
 * still get an object of their own.
 */
const headerMemo = new Map<string, Record<string, unknown>>();
const HEADER_MEMO_MAX_ENTRIES = 64;
const HEADER_MEMO_MAX_SEGMENT = 512;

function decodeHeader(token: string, end: number): Record<string, unknown> {
  const headerBytes = base64urlDecode(token, 0, end);
  if (headerBytes === undefined || headerBytes.byteLength === 0) throw new JwtError("malformed", "header is not base64url");
  return parseJoseObject(headerBytes, "header");
}

function copyOf(header: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, header);
}

function isFlat(header: Record<string, unknown>): boolean {
  for (const key of Object.keys(header)) {
    const v = header[key];
    if (typeof v === "object" && v !== null) return false;
  }
  return true;
}

function headerOf(token: string, end: number): Record<string, unknown> {
  if (end > HEADER_MEMO_MAX_SEGMENT) return decodeHeader(token, end);
  const segment = token.slice(0, end);
  const known = headerMemo.get(segment);
  if (known !== undefined) return copyOf(known);
  const header = decodeHeader(token, end);
  if (!isFlat(header)) return header;
  if (headerMemo.size >= HEADER_MEMO_MAX_ENTRIES) headerMemo.clear();
  headerMemo.set(segment, copyOf(header));
  return header;
}

export function parseCompactJws(token: unknown, options: CompactParseOptions): ParsedJws {
  if (typeof token !== "string") throw new JwtError("malformed", "token must be a string");
  if (token.length > options.maxLength) throw new JwtError("too_large", `token is longer than ${options.maxLength} characters`);
  const firstDot = token.indexOf(".");
  const secondDot = firstDot < 0 ? -1 : token.indexOf(".", firstDot + 1);
  if (secondDot < 0 || token.indexOf(".", secondDot + 1) >= 0) {
    throw new JwtError("malformed", "a compact JWS has exactly three dot-separated segments");
  }
  const header = headerOf(token, firstDot);
  const check = checkJwsHeader(header, header, options.algorithms, options.allowUnencoded);

  const signature = base64urlDecode(token, secondDot + 1);
  if (signature === undefined) throw new JwtError("malformed", "signature is not base64url");

  const detached = options.detachedPayload;
  let payload: Buffer;
  let signingInput: Buffer;
  if (detached !== undefined) {
    if (secondDot !== firstDot + 1) throw new JwtError("malformed", "detached content expected, but the token carries a payload");
    payload = Buffer.from(detached.buffer, detached.byteOffset, detached.byteLength);
    const encodedPayload = check.b64 ? Buffer.from(base64urlEncode(payload), "latin1") : payload;
    signingInput = Buffer.concat([Buffer.from(token.slice(0, firstDot + 1), "latin1"), encodedPayload]);
  } else if (check.b64) {
    const decoded = base64urlDecode(token, firstDot + 1, secondDot);
    if (decoded === undefined) throw new JwtError("malformed", "payload is not base64url");
    payload = decoded;
    signingInput = Buffer.from(token.slice(0, secondDot), "latin1");
  } else {
    // RFC 7797: the payload travels as-is; the header segment was already checked as ASCII.
    payload = Buffer.from(token.slice(firstDot + 1, secondDot), "utf8");
    signingInput = Buffer.from(token.slice(0, secondDot), "utf8");
  }
  return { header: header as JwsHeader, alg: check.alg, kid: check.kid, signingInput, payload, signature };
}

export interface CompactSignOptions {
  readonly algorithm: JwsAlgorithm;
  /** A key imported for "sign" (see importJwsKey), checked to fit the algorithm. */
  readonly key: JwsKey;
  /** Extra protected header members; `alg` always comes from `algorithm`. */
  readonly header?: Readonly<Record<string, unknown>> | undefined;
}

/** Produce a compact JWS over `payload` bytes (base64url-encoded payload). */
export function signCompactJws(payload: Uint8Array | string, options: CompactSignOptions): string {
  const header: Record<string, unknown> = { alg: options.algorithm };
  if (options.header) {
    for (const name of Object.keys(options.header)) {
      if (name === "alg" || name === "__proto__") continue;
      header[name] = options.header[name];
    }
  }
  const headerSegment = base64urlEncode(JSON.stringify(header));
  const payloadSegment = base64urlEncode(payload);
  const signingInput = `${headerSegment}.${payloadSegment}`;
  const signature = jwsSign(options.algorithm, options.key.keyObject, Buffer.from(signingInput, "latin1"));
  return `${signingInput}.${base64urlEncode(signature)}`;
}
