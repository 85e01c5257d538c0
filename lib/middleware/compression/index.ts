// keel/middleware: compression() with br, gzip and deflate.
export { compression, negotiateEncoding, compressibleType, DEFAULT_COMPRESSION_THRESHOLD, type CompressionOptions, type CompressionEncoding } from "./compression.js";
