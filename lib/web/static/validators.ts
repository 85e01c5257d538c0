// Validators of a served file and the conditional requests that use them (RFC 9110 §13).
// The ETag is `"<size>-<mtime ms>"` in base 36, the size and modification time of the bytes
// sent (the precompressed sibling's when one is sent, plus its coding): a strong validator in
// the sense nginx and Apache use one, so If-Range can name it. Last-Modified has a resolution
// of one second, so If-Modified-Since compares whole seconds.

export interface FileValidators {
  readonly etag: string;
  readonly lastModified: string;
  /** Modification time in whole seconds since the epoch (the precision of Last-Modified). */
  readonly mtimeSeconds: number;
}

export function fileValidators(size: number, mtimeMs: number, encoding: string | null): FileValidators {
  const tag = size.toString(36) + "-" + Math.floor(mtimeMs).toString(36) + (encoding === null ? "" : "-" + encoding);
  const mtimeSeconds = Math.floor(mtimeMs / 1000);
  return { etag: `"${tag}"`, lastModified: new Date(mtimeSeconds * 1000).toUTCString(), mtimeSeconds };
}

/**
 * Whether a GET or HEAD may be answered 304 (§13.2.2 steps 3 and 4): If-None-Match decides when
 * present (weak comparison, `*` matches); only without it does If-Modified-Since count.
 */
export function isNotModified(v: FileValidators, ifNoneMatch: string | undefined, ifModifiedSince: string | undefined): boolean {
  if (ifNoneMatch !== undefined) return etagListMatches(ifNoneMatch, v.etag, false);
  if (ifModifiedSince === undefined) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return v.mtimeSeconds <= Math.floor(since / 1000);
}

/**
 * Whether a Range request still applies (§13.1.5): an If-Range entity tag must match strongly,
 * an If-Range date must equal Last-Modified. Without If-Range, it does.
 */
export function rangeStillValid(v: FileValidators, ifRange: string | undefined): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return etagListMatches(value, v.etag, true);
  const date = Date.parse(value);
  return !Number.isNaN(date) && Math.floor(date / 1000) === v.mtimeSeconds;
}

/** Whether a comma-separated list of entity tags (or `*`) names `etag`. */
function etagListMatches(list: string, etag: string, strong: boolean): boolean {
  for (const raw of list.split(",")) {
    const candidate = raw.trim();
    if (candidate === "*") return !strong;
    if (candidate.startsWith("W/")) {
      if (!strong && candidate.slice(2) === etag) return true;
    } else if (candidate === etag) {
      return true;
    }
  }
  return false;
}
