// `POST /api/v1/uploads`: a title and one file (at most 5 MiB) as multipart/form-data. The file
// streams to a private temp file (removed after the response) while its SHA-256 is computed;
// the answer describes what arrived.
import { ApiError, created, route, t } from "../index.js";
import { multipart } from "../web/index.js";

export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

const UploadFields = t.object({ title: t.string({ length: { min: 1, max: 200 } }) });

export const UploadReceipt = t.named(
  "UploadReceipt",
  t.object({
    title: t.string(),
    /** The file name the client sent (never used as a path). */
    name: t.string(),
    size: t.u64(),
    content_type: t.string(),
    /** Hex SHA-256 of the bytes received. */
    sha256: t.string({ regex: "^[0-9a-f]{64}$" }),
  }),
);

export const uploadFile = route.post(
  "/api/v1/uploads",
  {
    tag: "uploads",
    summary: "Upload one file with a title; answers its size, type and SHA-256",
    // The whole body: the file plus room for the title and the part headers.
    bodyLimit: MAX_UPLOAD_BYTES + 64 * 1024,
    responses: { 201: UploadReceipt },
  },
  [multipart({ fields: UploadFields, files: { names: ["file"], maxFiles: 1, maxFileSize: MAX_UPLOAD_BYTES }, limits: { maxFields: 4, maxParts: 5 }, hash: "sha256" })],
  ({ fields, files }) => {
    const file = files.file[0];
    if (file === undefined) throw ApiError.validation([{ field: "file", code: "required", message: "a file is required" }]);
    return created({ title: fields.title, name: file.filename, size: file.size, content_type: file.contentType, sha256: file.sha256 ?? "" });
  },
);
