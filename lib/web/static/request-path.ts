// The part of the request path below the mount prefix, turned into file-name segments that cannot
// leave the root. It reads the raw path (what the router matched, not the wildcard parameter the
// router decoded) and decodes each segment once, so an encoded slash (`..%2fx`) stays inside its
// segment and is refused there instead of becoming a separator. Refused, all with the same 404 (a
// probe learns nothing about what exists): `.` and `..` segments (raw or encoded), empty
// segments (`//`), a decoded `/`, `\` or NUL, any other control character, and dotfiles unless
// allowed. Malformed percent-encoding is a 400 (the router refuses it first; checked again here).
import { ApiError } from "../../index.js";

export interface RequestedPath {
  /** Decoded segments, each a plain file name. Empty: the root itself. */
  readonly segments: readonly string[];
  /** The path ended with "/" (a directory was asked for). */
  readonly trailingSlash: boolean;
}

/** The one 404 of the static files: the same whether a file is missing, hidden or refused. */
export const FILE_NOT_FOUND = ApiError.notFound("Not found");

const BAD_ENCODING = ApiError.badRequest("Invalid percent-encoding in path");

/** `rawTail` is what follows the mount prefix's "/" ("" for the prefix itself). */
export function requestedPath(rawTail: string, allowDotfiles: boolean): RequestedPath {
  if (rawTail === "") return { segments: [], trailingSlash: true };
  const parts = rawTail.split("/");
  const trailingSlash = parts[parts.length - 1] === "";
  if (trailingSlash) parts.pop();
  const segments: string[] = [];
  for (const part of parts) {
    const name = decodeSegment(part);
    if (!isPlainName(name)) throw FILE_NOT_FOUND;
    if (name.charCodeAt(0) === 0x2e /* . */ && !allowDotfiles) throw FILE_NOT_FOUND;
    segments.push(name);
  }
  return { segments, trailingSlash };
}

function decodeSegment(part: string): string {
  if (part.indexOf("%") === -1) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    throw BAD_ENCODING;
  }
}

/** A name that is one directory entry: not empty, not `.` or `..`, no separator or control character. */
export function isPlainName(name: string): boolean {
  if (name === "" || name === "." || name === "..") return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x2f /* / */ || c === 0x5c /* \ */) return false;
  }
  return true;
}
