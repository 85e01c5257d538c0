// Turning a request or response body into its recorded form: JSON and urlencoded forms are kept,
// redacted, then cut at the cap on a UTF-8 character boundary; text/* and XML only where the
// caller says so (responses always; requests with `requestTextBodies`), since replay cannot
// find the secrets in them; anything else becomes a placeholder naming its type and size.
import { isJsonMediaType } from "../plugin.js";
import type { RecordedBody } from "./record.js";
import { type FieldPolicy, redactJson, redactPairs } from "./redaction.js";

export type TextualKind = "json" | "form" | "xml" | "text";

/** The textual kind of a media type (parameters ignored), or null for binary and unknown types. */
export function textualKind(contentType: string | undefined): TextualKind | null {
  if (contentType === undefined) return null;
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (isJsonMediaType(type)) return "json";
  if (type === "application/x-www-form-urlencoded") return "form";
  if (type === "application/xml" || type === "text/xml" || type.endsWith("+xml")) return "xml";
  if (type.startsWith("text/")) return "text";
  return null;
}

export const EMPTY_BODY: RecordedBody = Object.freeze({ body: null, body_size: 0, body_truncated: false, body_omitted: false });

/** A body that was not recorded: the placeholder says why and how big it was. */
export function omittedBody(reason: string, size: number | null): RecordedBody {
  const sized = size === null ? "size unknown" : `${size} bytes`;
  return { body: `[omitted: ${reason}, ${sized}]`, body_size: size, body_truncated: false, body_omitted: true };
}

export interface CaptureInput {
  bytes: Buffer;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Most bytes of text kept. */
  cap: number;
  /** What to redact in JSON and form bodies; null: nothing (a replayed answer, compared only). */
  policy: FieldPolicy | null;
  /** Record text/* and XML bodies (not redacted); false: a placeholder. */
  text: boolean;
}

export function captureBody(input: CaptureInput): RecordedBody {
  const { bytes, contentType } = input;
  const size = bytes.length;
  if (size === 0) return EMPTY_BODY;
  const encoding = input.contentEncoding?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") return omittedBody(`${encoding}-encoded`, size);
  const kind = textualKind(contentType);
  if (kind === null || (!input.text && (kind === "text" || kind === "xml"))) return omittedBody(contentType === undefined ? "no content-type" : mediaType(contentType), size);
  let text = bytes.toString("utf8");
  const policy = input.policy;
  if (policy !== null) {
    if (kind === "json") {
      // A JSON body that cannot be walked is not stored as it came: it may hold the secrets.
      try {
        text = JSON.stringify(redactJson(JSON.parse(text), policy));
      } catch {
        return omittedBody("JSON that could not be parsed for redaction", size);
      }
    } else if (kind === "form") {
      text = redactPairs(text, policy);
    }
  }
  const encoded = Buffer.from(text, "utf8");
  if (encoded.length <= input.cap) return { body: text, body_size: size, body_truncated: false, body_omitted: false };
  return { body: utf8Prefix(encoded, input.cap), body_size: size, body_truncated: true, body_omitted: false };
}

/** The media type without parameters (a charset or boundary says nothing useful in a placeholder). */
function mediaType(contentType: string): string {
  const semi = contentType.indexOf(";");
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim();
}

/** The longest prefix of at most `cap` bytes that does not split a UTF-8 character. */
export function utf8Prefix(buf: Buffer, cap: number): string {
  if (buf.length <= cap) return buf.toString("utf8");
  let end = cap;
  // buf[end] is the first byte left out: if it continues a character, that character is cut.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}
