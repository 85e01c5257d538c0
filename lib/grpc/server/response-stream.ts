// The server's half of one gRPC call on an HTTP/2 stream: response headers (the initial
// metadata) once, length-prefixed messages with backpressure, then trailers with grpc-status.
// A call that ends before anything was sent answers "trailers-only": one HEADERS frame carrying
// grpc-status with END_STREAM.
import type { OutgoingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { ACCEPTED_ENCODINGS } from "./decompress.js";
import { addOutgoingMetadata, encodeGrpcMessage, type OutgoingMetadata } from "./metadata.js";
import { resetAfterStatus } from "./reset-after-status.js";
import type { GrpcStatusCode } from "./status.js";

const CONTENT_TYPE = "application/grpc+proto";
// RST_STREAM code: CANCEL is what gRPC maps to CANCELLED.
const NGHTTP2_CANCEL = 8;

export class ResponseStream {
  readonly #stream: ServerHttp2Stream;
  readonly #trailers: OutgoingHttpHeaders = Object.create(null) as OutgoingHttpHeaders;
  #headersSent = false;
  #finished = false;

  constructor(stream: ServerHttp2Stream) {
    this.#stream = stream;
  }

  get headersSent(): boolean {
    return this.#headersSent;
  }

  /** True once a status was sent (or the stream was cancelled): later writes are dropped. */
  get finished(): boolean {
    return this.#finished;
  }

  /** Whether the HTTP/2 stream can still carry frames. */
  get writable(): boolean {
    return !this.#stream.destroyed && !this.#stream.closed;
  }

  /** Send the response headers with `metadata` (throws a TypeError for bad metadata). */
  sendHeaders(metadata?: OutgoingMetadata): void {
    if (this.#headersSent) throw new Error("grpc: response metadata was already sent");
    const headers = this.#baseHeaders();
    if (metadata !== undefined) addOutgoingMetadata(headers, metadata);
    if (this.#finished || !this.writable) return;
    this.#headersSent = true;
    this.#stream.respond(headers, { waitForTrailers: true });
    this.#stream.once("wantTrailers", () => {
      if (!this.#stream.destroyed) this.#stream.sendTrailers(this.#trailers);
    });
  }

  /** Add trailing metadata for the end of the call. */
  setTrailer(metadata: OutgoingMetadata): void {
    addOutgoingMetadata(this.#trailers, metadata);
  }

  /** Write one framed message, sending the headers first if needed; resolves when it may write again. */
  async write(frame: Buffer): Promise<void> {
    if (this.#finished || !this.writable) return;
    if (!this.#headersSent) this.sendHeaders();
    if (this.#stream.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.#stream.off("drain", done);
        this.#stream.off("close", done);
        resolve();
      };
      this.#stream.on("drain", done);
      this.#stream.on("close", done);
    });
  }

  /**
   * End the call with a status. Returns false if it had already ended. `metadata` is added to
   * the trailers (an invalid entry is dropped rather than losing the status).
   */
  finish(code: GrpcStatusCode, message: string, metadata?: OutgoingMetadata): boolean {
    if (this.#finished) return false;
    this.#finished = true;
    if (metadata !== undefined) {
      try {
        addOutgoingMetadata(this.#trailers, metadata);
      } catch {
        // The status matters more than a malformed trailer.
      }
    }
    this.#trailers["grpc-status"] = String(code);
    if (message !== "") this.#trailers["grpc-message"] = encodeGrpcMessage(message);
    if (!this.writable) return true;
    if (this.#headersSent) {
      // 'wantTrailers' fires once the last DATA frame is queued and sends #trailers.
      this.#stream.end();
    } else {
      const headers = this.#baseHeaders();
      for (const key of Object.keys(this.#trailers)) headers[key] = this.#trailers[key];
      this.#headersSent = true;
      this.#stream.respond(headers, { endStream: true });
    }
    // The client is still sending (the call ended early): ask it to stop, once the status is out.
    if (!this.#stream.readableEnded) resetAfterStatus(this.#stream);
    return true;
  }

  /** Reset the stream with CANCEL (shutdown past its timeout); no status is sent. */
  cancel(): void {
    this.#finished = true;
    if (!this.#stream.destroyed) this.#stream.close(NGHTTP2_CANCEL);
  }

  #baseHeaders(): OutgoingHttpHeaders {
    const headers = Object.create(null) as OutgoingHttpHeaders;
    headers[":status"] = 200;
    headers["content-type"] = CONTENT_TYPE;
    headers["grpc-accept-encoding"] = ACCEPTED_ENCODINGS;
    return headers;
  }
}
