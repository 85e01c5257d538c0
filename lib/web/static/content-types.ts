// The Content-Type of a served file, from its extension: a small built-in table of the types a web
// app serves (no MIME database to load). Text types carry `charset=utf-8`; an extension the table
// does not know is `application/octet-stream`, which with `nosniff` a browser will not render.
import { extname } from "node:path";

const UTF8 = "; charset=utf-8";

/** extension (lowercase, no dot) -> media type; a `true` second element marks a text type. */
const TABLE: ReadonlyArray<readonly [string, string, boolean]> = [
  ["html", "text/html", true],
  ["htm", "text/html", true],
  ["css", "text/css", true],
  ["js", "text/javascript", true],
  ["mjs", "text/javascript", true],
  ["cjs", "text/javascript", true],
  ["json", "application/json", true],
  ["map", "application/json", true],
  ["webmanifest", "application/manifest+json", true],
  ["txt", "text/plain", true],
  ["md", "text/markdown", true],
  ["csv", "text/csv", true],
  ["xml", "application/xml", true],
  ["svg", "image/svg+xml", true],
  ["png", "image/png", false],
  ["jpg", "image/jpeg", false],
  ["jpeg", "image/jpeg", false],
  ["gif", "image/gif", false],
  ["webp", "image/webp", false],
  ["avif", "image/avif", false],
  ["ico", "image/x-icon", false],
  ["bmp", "image/bmp", false],
  ["pdf", "application/pdf", false],
  ["wasm", "application/wasm", false],
  ["woff", "font/woff", false],
  ["woff2", "font/woff2", false],
  ["ttf", "font/ttf", false],
  ["otf", "font/otf", false],
  ["mp4", "video/mp4", false],
  ["webm", "video/webm", false],
  ["ogg", "audio/ogg", false],
  ["mp3", "audio/mpeg", false],
  ["wav", "audio/wav", false],
  ["zip", "application/zip", false],
  ["gz", "application/gzip", false],
  ["br", "application/x-brotli", false],
];

const BY_EXTENSION: ReadonlyMap<string, string> = new Map(TABLE.map(([ext, type, isText]) => [ext, isText ? type + UTF8 : type]));

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/** The Content-Type for a file name (`app.JS` -> `text/javascript; charset=utf-8`). */
export function contentTypeFor(fileName: string): string {
  const ext = extname(fileName).slice(1).toLowerCase();
  return BY_EXTENSION.get(ext) ?? DEFAULT_CONTENT_TYPE;
}
