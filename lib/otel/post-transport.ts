// How the exporter's POSTs are made: "inline" with node:http in this thread (http-post.ts), or by
// a worker thread (worker-transport.ts). The exporter's batching, retries and counts do not change
// with it; only where the HTTP client runs does.
import { postBody, type PostResult } from "./http-post.js";

export type OtlpTransport = "worker" | "inline";

/** Where and how every POST of one exporter goes. */
export interface PostTarget {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  readonly timeoutMs: number;
}

export interface PostOutcome extends PostResult {
  /**
   * The body's bytes, to send again or reuse once the export is over: the same Buffer in-process,
   * a new view of the same memory when it went to the worker and came back. null when they are
   * gone (the worker died holding them, or the transport was closed): the batch cannot be sent.
   */
  readonly bytes: Buffer | null;
  /** The whole buffer `bytes` lies in (the batch's, for reuse), null with `bytes`. */
  readonly owner: Buffer | null;
}

export interface PostTransport {
  /** "inline" once a worker transport has fallen back. */
  readonly kind: OtlpTransport;
  /**
   * POST `body`, which lies in `owner` (its batch's buffer). Neither may be touched until this
   * resolves; then `bytes` and `owner` of the outcome take their place.
   */
  post(body: Buffer, owner: Buffer): Promise<PostOutcome>;
  /** Get ready for the first POST ahead of time (start the worker); nothing when ready. */
  prepare(): void;
  /** Release what the transport holds (the worker thread). */
  close(): Promise<void>;
}

export class InlineTransport implements PostTransport {
  readonly kind = "inline";
  private readonly target: PostTarget;
  /** Aborted by close(): a POST under way is cut off (its socket destroyed), later ones are not made. */
  private readonly closing = new AbortController();

  constructor(target: PostTarget) {
    this.target = target;
  }

  async post(body: Buffer, owner: Buffer): Promise<PostOutcome> {
    const t = this.target;
    const result = await postBody(t.url, t.headers, body, t.contentType, t.timeoutMs, this.closing.signal);
    return { ...result, bytes: body, owner };
  }

  prepare(): void {}

  /** Cut off a POST still under way (past a shutdown's deadline): it must not hold the process. */
  close(): Promise<void> {
    this.closing.abort();
    return Promise.resolve();
  }
}

/** A POST that never reached the network. */
export const NOT_SENT: PostResult = Object.freeze({ status: 0, retryAfter: undefined, body: Buffer.alloc(0), contentType: "", error: null, bodySent: false });
