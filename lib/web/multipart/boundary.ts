// The boundary of a multipart/form-data body, from the request's Content-Type (RFC 2046 §5.1.1):
// 1 to 70 characters from a fixed set, not ending in a space, quoted or not.
import { malformed } from "./errors.js";
import { parseHeaderParams } from "./header-params.js";

const BCHARS = /^[0-9A-Za-z'()+_,\-./:=? ]{1,70}$/;

/** The boundary parameter of `contentType`; a missing or invalid one is a 400. */
export function boundaryOf(contentType: string): string {
  const semi = contentType.indexOf(";");
  const params = semi === -1 ? null : parseHeaderParams(contentType, semi);
  if (params === null) throw malformed("the content-type has no boundary parameter", false);
  const boundary = params["boundary"];
  if (boundary === undefined) throw malformed("the content-type has no boundary parameter", false);
  if (!BCHARS.test(boundary) || boundary.endsWith(" ")) {
    throw malformed("the boundary must be 1 to 70 characters of the RFC 2046 set, not ending in a space", false);
  }
  return boundary;
}
