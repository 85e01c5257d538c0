// What a handler sees of its call besides the request: the request metadata, a signal that
// aborts when the call is over for the server (deadline, client cancel, shutdown), the deadline,
// the peer, and the response metadata it may send.
import type { MethodDescriptor } from "../proto/index.js";
import type { IncomingMetadata, OutgoingMetadata } from "./metadata.js";
import type { ResponseStream } from "./response-stream.js";

export class GrpcCall {
  /** The method being called (`method.path` is `/package.Service/Method`). */
  readonly method: MethodDescriptor;
  /** Request metadata: a null-prototype map with lowercase keys; `-bin` values are Buffers. */
  readonly metadata: IncomingMetadata;
  /** Aborted on the deadline, a client cancel, a failed call, or server shutdown past its drain timeout. */
  readonly signal: AbortSignal;
  /** From the request's grpc-timeout; null when the client set none. */
  readonly deadline: Date | null;
  /** The client's address as `host:port` (`[v6]:port`). */
  readonly peer: string;
  readonly #response: ResponseStream;

  constructor(init: {
    method: MethodDescriptor;
    metadata: IncomingMetadata;
    signal: AbortSignal;
    deadline: Date | null;
    peer: string;
    response: ResponseStream;
  }) {
    this.method = init.method;
    this.metadata = init.metadata;
    this.signal = init.signal;
    this.deadline = init.deadline;
    this.peer = init.peer;
    this.#response = init.response;
  }

  /** True once the response headers (initial metadata) are out. */
  get metadataSent(): boolean {
    return this.#response.headersSent;
  }

  /**
   * Send the initial metadata now (otherwise it goes, empty, with the first message or the
   * status). Throws if it was already sent or a key is invalid (reserved, not lowercase, or a
   * Buffer on a key without `-bin`).
   */
  sendMetadata(metadata: OutgoingMetadata): void {
    this.#response.sendHeaders(metadata);
  }

  /** Add a trailing metadata entry, sent with the status. Throws for an invalid key or value. */
  setTrailer(key: string, value: string | Buffer): void {
    this.#response.setTrailer({ [key]: value });
  }
}
