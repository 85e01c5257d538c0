// JWS JSON serialization (RFC 7515 §7.2), flattened and general, parsed into one `ParsedJws`
// per signature so the compact verifier's key lookup and checks apply unchanged.
import { base64urlDecode, base64urlEncode, isBase64url } from "./jws-base64url.js";
import type { ParsedJws } from "./jws-compact.js";
import { checkJwsHeader } from "./jws-header.js";
import type { JwsHeader } from "./jws-header.js";
import { parseJoseObject } from "./jwt-json.js";
import { JwtError } from "./jwt-error.js";

export interface JsonParseOptions {
  readonly algorithms: ReadonlySet<string>;
  readonly maxLength: number;
  readonly allowUnencoded: boolean;
  readonly detachedPayload?: Uint8Array | undefined;
}

const MAX_SIGNATURES = 16;

function malformed(message: string): never {
  throw new JwtError("malformed", message);
}

function own(object: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) malformed(`${what} must be a JSON object`);
  return value as Record<string, unknown>;
}

export function parseJwsJson(input: unknown, options: JsonParseOptions): ParsedJws[] {
  let jws: Record<string, unknown>;
  if (typeof input === "string") {
    if (input.length > options.maxLength) throw new JwtError("too_large", `JWS is longer than ${options.maxLength} characters`);
    jws = parseJoseObject(Buffer.from(input, "utf8"), "JWS JSON serialization");
  } else {
    jws = asObject(input, "JWS JSON serialization");
  }
  const payloadMember = own(jws, "payload");
  if (payloadMember !== undefined && typeof payloadMember !== "string") malformed('"payload" must be a string');
  if (payloadMember === undefined && options.detachedPayload === undefined) malformed('"payload" is missing and no detached payload was given');
  if (payloadMember !== undefined && options.detachedPayload !== undefined) malformed("detached content expected, but the JWS carries a payload");

  const general = own(jws, "signatures");
  let entries: Record<string, unknown>[];
  if (general !== undefined) {
    if (own(jws, "signature") !== undefined) malformed('use either "signatures" or "signature", not both');
    if (!Array.isArray(general) || general.length === 0 || general.length > MAX_SIGNATURES) {
      malformed(`"signatures" must be an array of 1 to ${MAX_SIGNATURES} objects`);
    }
    entries = general.map((entry, i) => asObject(entry, `signatures[${i}]`));
  } else {
    entries = [jws];
  }

  let payloadEncoding: boolean | undefined;
  return entries.map((entry) => {
    const parsed = parseSignature(entry, payloadMember as string | undefined, options);
    // All signatures must read the payload the same way (RFC 7797 §3).
    const b64 = parsed.header["b64"] !== false;
    if (payloadEncoding !== undefined && payloadEncoding !== b64) malformed("signatures disagree on b64");
    payloadEncoding = b64;
    return parsed;
  });
}

function parseSignature(entry: Record<string, unknown>, payloadText: string | undefined, options: JsonParseOptions): ParsedJws {
  const protectedText = own(entry, "protected");
  let protectedHeader: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  if (protectedText !== undefined) {
    if (typeof protectedText !== "string") malformed('"protected" must be a string');
    const bytes = base64urlDecode(protectedText);
    if (bytes === undefined || bytes.byteLength === 0) malformed('"protected" is not base64url');
    protectedHeader = parseJoseObject(bytes, "protected header");
  }
  const unprotectedMember = own(entry, "header");
  const unprotected = unprotectedMember === undefined ? undefined : asObject(unprotectedMember, '"header"');
  if (protectedText === undefined && unprotected === undefined) malformed("a signature needs a protected or unprotected header");

  const header = Object.assign(Object.create(null) as Record<string, unknown>, protectedHeader);
  if (unprotected) {
    for (const name of Object.keys(unprotected)) {
      if (name === "__proto__" || name === "constructor" || name === "prototype") malformed(`member name "${name}" is not allowed`);
      // RFC 7515 §7.2.1: protected and unprotected member names must be disjoint.
      if (name in header) malformed(`header parameter ${JSON.stringify(name)} appears twice`);
      header[name] = unprotected[name];
    }
  }
  const check = checkJwsHeader(header, protectedHeader, options.algorithms, options.allowUnencoded);

  const signatureText = own(entry, "signature");
  if (typeof signatureText !== "string") malformed('"signature" must be a string');
  const signature = base64urlDecode(signatureText);
  if (signature === undefined) malformed('"signature" is not base64url');

  const prefix = Buffer.from(`${typeof protectedText === "string" ? protectedText : ""}.`, "latin1");
  let payload: Buffer;
  let encodedPayload: Buffer;
  if (payloadText === undefined) {
    const detached = options.detachedPayload!;
    payload = Buffer.from(detached.buffer, detached.byteOffset, detached.byteLength);
    encodedPayload = check.b64 ? Buffer.from(base64urlEncode(payload), "latin1") : payload;
  } else if (check.b64) {
    if (!isBase64url(payloadText)) malformed('"payload" is not base64url');
    payload = base64urlDecode(payloadText)!;
    encodedPayload = Buffer.from(payloadText, "latin1");
  } else {
    payload = Buffer.from(payloadText, "utf8");
    encodedPayload = payload;
  }
  return {
    header: header as JwsHeader,
    alg: check.alg,
    kid: check.kid,
    signingInput: Buffer.concat([prefix, encodedPayload]),
    payload,
    signature,
  };
}
