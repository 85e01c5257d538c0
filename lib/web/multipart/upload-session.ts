// One request's multipart body: reads the request stream (bytes counted against the route's body
// limit, as ctx.body() counts them), feeds the parser, collects text fields, streams files to
// their sinks with backpressure, and removes what it wrote when told to (`dispose`).
import { isUtf8 } from "node:buffer";
import type { Writable } from "node:stream";
import { BodyLimitError, defined } from "../../plugin.js";
import { ApiError, type Context } from "../../index.js";
import { fileTypeRefused, limitExceeded, malformed } from "./errors.js";
import { FileTarget } from "./file-target.js";
import { typeAccepted, type ResolvedOptions } from "./options.js";
import { MultipartParser, type PartHandler } from "./parser.js";
import type { PartHeaders } from "./part-headers.js";
import { ByteBuffer } from "./byte-buffer.js";
import { UploadDir } from "./temp-dir.js";

/** One received file. `filename` and `contentType` are what the client claimed. */
export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
  /** Bytes received. */
  readonly size: number;
  /** The temp file (removed after the response), or null when a user sink received the bytes. */
  readonly path: string | null;
  /** Hex SHA-256 of the bytes (with `hash: "sha256"`). */
  readonly sha256?: string;
}

/** Text fields as received (null-prototype; a repeated name becomes an array) and files by field. */
export interface RawMultipart {
  fields: Record<string, string | string[]>;
  files: Record<string, UploadedFile[]>;
}

const FIELD = 1;
const FILE = 2;
const SKIP = 3; // a file input left empty: `filename=""` (browsers send one, with no bytes)

interface PendingFile {
  readonly headers: PartHeaders;
  readonly contentType: string;
  readonly target: FileTarget;
  readonly path: Promise<string | null>;
  done: Promise<void> | null;
}

export class UploadSession implements PartHandler {
  private readonly ctx: Context;
  private readonly options: ResolvedOptions;
  private readonly parser: MultipartParser;
  private readonly dir = new UploadDir();
  private readonly fields: Record<string, string | string[]> = Object.create(null);
  private readonly pending: PendingFile[] = [];
  private readonly fieldBytes = new ByteBuffer(256);
  private readonly blocked: FileTarget[] = [];
  private parts = 0;
  private fieldCount = 0;
  private kind = 0;
  private partName = "";
  private partSize = 0;
  private current: PendingFile | null = null;
  /** Set while the request is being read: stops it with an error. */
  private stopReading: ((err: unknown) => void) | null = null;
  private disposed: Promise<void> | null = null;

  constructor(ctx: Context, boundary: string, options: ResolvedOptions) {
    this.ctx = ctx;
    this.options = options;
    this.parser = new MultipartParser(boundary, options.maxHeaderSize, this);
  }

  partBegin(headers: PartHeaders): void {
    const o = this.options;
    if (++this.parts > o.maxParts) throw limitExceeded("limits.maxParts", o.maxParts, "The number of parts");
    this.partName = headers.name;
    this.partSize = 0;
    if (headers.filename === undefined) {
      if (++this.fieldCount > o.maxFields) throw limitExceeded("limits.maxFields", o.maxFields, "The number of fields");
      this.kind = FIELD;
      this.fieldBytes.reset();
      return;
    }
    if (!o.acceptsFiles || (o.fileNames !== null && !o.fileNames.has(headers.name))) {
      throw ApiError.badRequest(`Unexpected file in field ${JSON.stringify(headers.name)}`, { headers: { connection: "close" } });
    }
    if (headers.filename === "") {
      this.kind = SKIP;
      return;
    }
    if (this.pending.length + 1 > o.maxFiles) throw limitExceeded("files.maxFiles", o.maxFiles, "The number of files");
    // RFC 7578 §4.4: a file part without a Content-Type is application/octet-stream.
    const contentType = headers.contentType === "" ? "application/octet-stream" : headers.contentType;
    if (o.types !== null && !typeAccepted(contentType, o.types)) throw fileTypeRefused(headers.name, contentType, o.types);
    const opened = this.openSink({ field: headers.name, filename: headers.filename, contentType });
    const file: PendingFile = {
      headers,
      contentType,
      target: new FileTarget(opened.then((o) => o.sink), o.sha256),
      path: opened.then((o) => o.path, () => null),
      done: null,
    };
    this.pending.push(file);
    this.current = file;
    this.kind = FILE;
  }

  private openSink(info: { field: string; filename: string; contentType: string }): Promise<{ sink: Writable; path: string | null }> {
    const user = this.options.sink;
    if (user === null) return this.dir.createFile().then((f) => ({ sink: f.stream, path: f.path }));
    return Promise.resolve()
      .then(() => user(info, this.ctx))
      .then((sink) => ({ sink, path: null }));
  }

  partData(data: Buffer): void {
    const o = this.options;
    this.partSize += data.length;
    if (this.kind === FIELD) {
      if (this.partSize > o.maxFieldSize) throw limitExceeded("limits.maxFieldSize", o.maxFieldSize, `Field ${JSON.stringify(this.partName)}`);
      this.fieldBytes.append(data);
      return;
    }
    if (this.partSize > o.maxFileSize) throw limitExceeded("files.maxFileSize", o.maxFileSize, `File in field ${JSON.stringify(this.partName)}`);
    const file = this.current;
    if (this.kind !== FILE || file === null) return;
    // A sink that failed stops the upload now rather than after the rest of the body was read.
    if (file.target.failure !== null) throw storeFailed(file.target.failure);
    if (!file.target.write(data)) this.blocked.push(file.target);
  }

  partEnd(): void {
    if (this.kind === FIELD) {
      const bytes = this.fieldBytes.view();
      if (!isUtf8(bytes)) throw malformed(`field ${JSON.stringify(this.partName)} is not valid UTF-8`);
      const value = bytes.toString("utf8");
      const prev = this.fields[this.partName];
      if (prev === undefined) this.fields[this.partName] = value;
      else if (typeof prev === "string") this.fields[this.partName] = [prev, value];
      else prev.push(value);
    } else if (this.kind === FILE && this.current !== null) {
      const file = this.current;
      // Close each file as soon as its part ends; a failure is reported when the body is complete.
      file.done = file.target.end();
      file.done.catch(() => undefined);
      this.current = null;
    }
    this.kind = 0;
  }

  /** Read the whole body. Rejects with the uniform error; the caller then calls `dispose()`. */
  read(): Promise<RawMultipart> {
    const req = this.ctx.req;
    const limit = this.ctx.bodyLimit;
    return new Promise<void>((resolve, reject) => {
      let received = 0;
      let stopped = false;
      const detach = (): void => {
        this.stopReading = null;
        req.removeListener("data", onData);
        req.removeListener("end", onEnd);
        req.removeListener("error", onError);
        req.removeListener("aborted", onAborted);
      };
      const stop = (err: unknown): void => {
        if (stopped) return;
        stopped = true;
        detach();
        req.pause(); // the unread rest is discarded by the lingering close (errors say connection: close)
        reject(err);
      };
      this.stopReading = stop;
      const onData = (chunk: Buffer): void => {
        received += chunk.length;
        if (received > limit) return stop(new BodyLimitError(limit));
        try {
          this.parser.write(chunk);
        } catch (err) {
          return stop(err);
        }
        if (this.blocked.length > 0) {
          req.pause();
          const waits = this.blocked.splice(0).map((t) => t.writable());
          void Promise.all(waits).then(() => {
            if (!stopped) req.resume();
          });
        }
      };
      const onEnd = (): void => {
        if (stopped) return;
        stopped = true;
        detach();
        // An HTTP/2 stream reset by the client ends its request normally: still a cut-off body.
        if (req.aborted) return reject(cutOff());
        try {
          this.parser.end();
          resolve();
        } catch (err) {
          reject(err);
        }
      };
      const onError = (err: Error): void => {
        if ((err as NodeJS.ErrnoException).code === "ECONNRESET") stop(cutOff(err));
        else stop(ApiError.badRequest("Request body could not be read", { cause: err, detail: err.message }));
      };
      const onAborted = (): void => stop(cutOff());
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
      req.on("aborted", onAborted);
      if (req.isPaused()) req.resume();
    }).then(() => this.collectFiles());
  }

  private async collectFiles(): Promise<RawMultipart> {
    const files: Record<string, UploadedFile[]> = Object.create(null);
    for (const name of this.options.fileNames ?? []) files[name] = [];
    for (const file of this.pending) {
      try {
        await file.done;
      } catch (err) {
        throw storeFailed(err);
      }
      const sha256 = file.target.digest();
      const h = file.headers;
      const uploaded: UploadedFile = {
        field: h.name,
        filename: h.filename ?? "",
        contentType: file.contentType,
        size: file.target.size,
        path: await file.path,
        ...defined({ sha256 }),
      };
      (files[h.name] ??= []).push(uploaded);
    }
    return { fields: this.fields, files };
  }

  /** Stop reading (if still reading), close every sink and remove the temp directory. Idempotent. */
  dispose(): Promise<void> {
    if (this.disposed !== null) return this.disposed;
    this.stopReading?.(cutOff());
    this.disposed = Promise.all(this.pending.map((f) => f.target.destroy())).then(() => this.dir.remove());
    return this.disposed;
  }
}

function storeFailed(err: unknown): ApiError {
  return ApiError.internal("An uploaded file could not be stored", {
    cause: err,
    detail: err instanceof Error ? err.message : String(err),
    headers: { connection: "close" },
  });
}

function cutOff(cause?: unknown): ApiError {
  return ApiError.badRequest("Request body was cut off by the client", cause === undefined ? undefined : { cause });
}
