// A part's header block (RFC 7578 §4): Content-Disposition `form-data` with its `name` and, for a
// file, `filename` (or `filename*`, preferred when both are sent); Content-Type; and a
// Content-Transfer-Encoding that, when present at all, must be an identity one. Other headers
// are ignored. Header bytes are UTF-8 (what browsers send); bytes that are not are read as Latin-1.
import { isUtf8 } from "node:buffer";
import { isHttpToken, parseMediaType } from "../../plugin.js";
import { malformed } from "./errors.js";
import { decodeExtValue } from "./ext-value.js";
import { parseHeaderParams } from "./header-params.js";

export interface PartHeaders {
  /** The form field name. */
  readonly name: string;
  /** The client's file name (a file part), or undefined (a text field). Never a path to trust. */
  readonly filename: string | undefined;
  /** The declared media type, lowercased without parameters; "" when not sent. */
  readonly contentType: string;
}

const IDENTITY_ENCODINGS = new Set(["7bit", "8bit", "binary"]);

function dispositionOf(value: string): { name: string; filename: string | undefined } {
  const semi = value.indexOf(";");
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (type !== "form-data") throw malformed(`a part's Content-Disposition must be form-data, got ${JSON.stringify(type)}`);
  const params = semi === -1 ? null : parseHeaderParams(value, semi);
  if (params === null) throw malformed("a part's Content-Disposition parameters are malformed");
  const name = params["name"];
  if (name === undefined) throw malformed("a part's Content-Disposition has no name");
  let filename = params["filename"];
  const extended = params["filename*"];
  if (extended !== undefined) {
    const decoded = decodeExtValue(extended);
    if (decoded === null) throw malformed("a part's filename* is not a valid RFC 8187 value");
    filename = decoded;
  }
  return { name, filename };
}

/** Parse the header lines of one part (without the blank line that ends them). */
export function parsePartHeaders(block: Buffer): PartHeaders {
  const text = isUtf8(block) ? block.toString("utf8") : block.toString("latin1");
  let disposition: { name: string; filename: string | undefined } | undefined;
  let contentType = "";
  let seenType = false;
  if (text !== "") {
    for (const line of text.split("\r\n")) {
      if (line === "") continue; // the split leaves one empty string after the last CRLF
      if (line.includes("\r") || line.includes("\n") || line.includes("\0")) throw malformed("a part header contains CR, LF or NUL");
      if (line[0] === " " || line[0] === "\t") throw malformed("folded part headers are not allowed");
      const colon = line.indexOf(":");
      if (colon <= 0) throw malformed("a part header line has no name");
      const name = line.slice(0, colon).toLowerCase();
      if (!isHttpToken(name, name.length)) throw malformed("a part header name is invalid");
      const value = line.slice(colon + 1).trim();
      if (name === "content-disposition") {
        if (disposition !== undefined) throw malformed("a part has two Content-Disposition headers");
        disposition = dispositionOf(value);
      } else if (name === "content-type") {
        if (seenType) throw malformed("a part has two Content-Type headers");
        seenType = true;
        contentType = parseMediaType(value).essence;
        if (contentType === "") throw malformed("a part's Content-Type is invalid");
      } else if (name === "content-transfer-encoding") {
        if (!IDENTITY_ENCODINGS.has(value.toLowerCase())) throw malformed(`Content-Transfer-Encoding ${JSON.stringify(value)} is not supported`);
      }
    }
  }
  if (disposition === undefined) throw malformed("a part has no Content-Disposition header");
  return { name: disposition.name, filename: disposition.filename, contentType };
}
