// The body of a keel request as a Web ReadableStream (for a mounted fetch handler), read from the
// socket only as fast as the handler reads it, and held to the route's body limit: past it the
// stream errors with the 413 the mount then answers, and nothing more is read.
import type { IncomingMessage } from "node:http";
import { ApiError, type Context } from "../../index.js";
import { BodyLimitError, declaredLength } from "../../plugin.js";

/** Bytes queued in the stream ahead of the handler's reads (the socket is paused past this). */
const QUEUE_BYTES = 64 * 1024;

export class RequestBodyStream {
  /** Why the body could not be read in full (over the limit, cut off): the mount answers it. */
  failure: ApiError | null = null;
  readonly stream: ReadableStream<Uint8Array>;
  private readonly req: IncomingMessage;
  private settled = false;

  constructor(req: IncomingMessage, limit: number) {
    this.req = req;
    let received = 0;
    const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: ApiError): void => {
      this.failure = error;
      this.release();
      controller.error(error);
    };
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          // Paused first, so adding a 'data' listener does not start the flow: pull() does.
          req.pause();
          this.onData = (chunk: Buffer) => {
            received += chunk.length;
            if (received > limit) return fail(controller, new BodyLimitError(limit));
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          };
          this.onEnd = () => {
            // An HTTP/2 stream reset by the client ends its request normally: cut off all the same.
            if (req.aborted) return fail(controller, ApiError.badRequest("Request body was cut off by the client"));
            this.release();
            controller.close();
          };
          this.onError = (err: Error) => fail(controller, ApiError.badRequest("Request body was cut off by the client", { cause: err }));
          req.on("data", this.onData);
          req.on("end", this.onEnd);
          req.on("error", this.onError);
        },
        pull: () => {
          if (!this.settled) req.resume();
        },
        // The handler does not want the rest: stop reading; the writer discards what is left
        // before the connection is reused (lingering close).
        cancel: () => this.release(),
      },
      { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength },
    );
  }

  private onData: (chunk: Buffer) => void = () => undefined;
  private onEnd: () => void = () => undefined;
  private onError: (err: Error) => void = () => undefined;

  /**
   * Stop reading (cancelled, over, or the response is over while the handler never read it all):
   * what the socket still carries is the writer's to discard (lingering close), not queued here.
   */
  release(): void {
    if (this.settled) return;
    this.settled = true;
    this.req.removeListener("data", this.onData);
    this.req.removeListener("end", this.onEnd);
    this.req.removeListener("error", this.onError);
    this.req.pause();
  }
}

/**
 * The request body for a Request: null when there is none (or the method may not carry one);
 * the buffered body when a layer already read it; otherwise a stream. A declared length over
 * the limit is refused before anything is read.
 */
export async function requestBody(ctx: Context): Promise<RequestBodyStream | Uint8Array | null> {
  const req = ctx.req;
  if (ctx.method === "GET" || ctx.method === "HEAD") return null;
  const declared = declaredLength(req);
  if (declared === 0) return null;
  if (declared > ctx.bodyLimit) throw new BodyLimitError(ctx.bodyLimit);
  if (req.readableDidRead || req.readableEnded) return ctx.body();
  return new RequestBodyStream(req, ctx.bodyLimit);
}
