// multipart() options, their defaults and their checks (done once, when the route is declared).
import type { Writable } from "node:stream";
import type { Context, AnySchema } from "../../index.js";
import { isHttpToken } from "../../plugin.js";

/** What a file sink is told about the file it will receive (all from the client: untrusted). */
export interface FilePartInfo {
  readonly field: string;
  readonly filename: string;
  readonly contentType: string;
}

/** A user sink: where one file's bytes are written, with backpressure. Ended on success, destroyed on failure. */
export type FileSink = (part: FilePartInfo, ctx: Context) => Writable | Promise<Writable>;

export interface MultipartFileOptions<N extends string = string> {
  /** The file fields accepted (a file under another name is a 400); default: any name. */
  names?: readonly N[];
  /** Bytes per file; default 10 MiB. */
  maxFileSize?: number;
  /** Files per request; default 10. */
  maxFiles?: number;
  /** Accepted media types, `type/subtype` or `type/*` (else 415); default: any. */
  types?: readonly string[];
}

export interface MultipartLimits {
  /** Parts (fields and files) per request; default 100. */
  maxParts?: number;
  /** Bytes of one part's header lines; default 8 KiB. */
  maxHeaderSize?: number;
  /** Bytes of one text field's value; default 64 KiB. */
  maxFieldSize?: number;
  /** Text fields per request; default 100. */
  maxFields?: number;
}

export interface MultipartOptions<S extends AnySchema | undefined = undefined, N extends string = string> {
  /** Schema of the text fields (an object schema); values are coerced as form() coerces them. */
  fields?: S;
  /** Accept files, with these limits. Without it a file part is refused (400). */
  files?: MultipartFileOptions<N>;
  limits?: MultipartLimits;
  /** "temp" (default): files go to a private temp directory removed after the response. */
  dest?: "temp" | FileSink;
  /** Compute each file's SHA-256 while it streams. */
  hash?: "sha256";
  /** Apply the fields schema's `default`s. */
  useDefaults?: boolean;
}

export interface ResolvedOptions {
  readonly maxParts: number;
  readonly maxHeaderSize: number;
  readonly maxFieldSize: number;
  readonly maxFields: number;
  readonly acceptsFiles: boolean;
  readonly fileNames: ReadonlySet<string> | null;
  readonly maxFileSize: number;
  readonly maxFiles: number;
  readonly types: readonly string[] | null;
  readonly sink: FileSink | null;
  readonly sha256: boolean;
}

function limit(value: number | undefined, fallback: number, name: string, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) throw new TypeError(`multipart(): ${name} must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

/** `type/subtype` or `type/*` (already lowercased): two tokens around one slash. */
function isMediaRange(t: string): boolean {
  const slash = t.indexOf("/");
  return slash > 0 && isHttpToken(t.slice(0, slash)) && isHttpToken(t.slice(slash + 1));
}

export function resolveOptions(options: MultipartOptions<AnySchema | undefined, string>): ResolvedOptions {
  const limits = options.limits ?? {};
  const files = options.files;
  const types = files?.types?.map((t) => t.trim().toLowerCase()) ?? null;
  for (const t of types ?? []) if (!isMediaRange(t)) throw new TypeError(`multipart(): files.types entry ${JSON.stringify(t)} is not type/subtype or type/*`);
  if (options.dest !== undefined && options.dest !== "temp" && typeof options.dest !== "function") {
    throw new TypeError('multipart(): dest must be "temp" or a function returning a Writable');
  }
  if (options.hash !== undefined && options.hash !== "sha256") throw new TypeError('multipart(): hash must be "sha256"');
  return {
    maxParts: limit(limits.maxParts, 100, "limits.maxParts", 1),
    maxHeaderSize: limit(limits.maxHeaderSize, 8 * 1024, "limits.maxHeaderSize", 1),
    maxFieldSize: limit(limits.maxFieldSize, 64 * 1024, "limits.maxFieldSize"),
    maxFields: limit(limits.maxFields, 100, "limits.maxFields"),
    acceptsFiles: files !== undefined,
    fileNames: files?.names === undefined ? null : new Set(files.names),
    maxFileSize: limit(files?.maxFileSize, 10 * 1024 * 1024, "files.maxFileSize"),
    maxFiles: limit(files?.maxFiles, 10, "files.maxFiles"),
    types,
    sink: typeof options.dest === "function" ? options.dest : null,
    sha256: options.hash === "sha256",
  };
}

/** Whether `type` (a lowercased essence) is one of the accepted ranges. */
export function typeAccepted(type: string, accepted: readonly string[]): boolean {
  for (const range of accepted) {
    if (range === type) return true;
    if (range.endsWith("/*") && type.startsWith(range.slice(0, -1))) return true;
  }
  return false;
}
