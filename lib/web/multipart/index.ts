// keel multipart: streaming multipart/form-data uploads (RFC 7578) as a body extractor.
export { multipart, type MultipartBody, type MultipartFields, type MultipartFiles } from "./multipart.js";
export type { FilePartInfo, FileSink, MultipartFileOptions, MultipartLimits, MultipartOptions } from "./options.js";
export type { UploadedFile } from "./upload-session.js";
