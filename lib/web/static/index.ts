// keel/web static files: serveStatic() serves a directory under a path prefix (GET and HEAD, ETag
// and Last-Modified, 304, single byte ranges, precompressed .br/.gz siblings, no path out of root).
export { serveStatic, type StaticOptions } from "./serve-static.js";
export { contentTypeFor } from "./content-types.js";
