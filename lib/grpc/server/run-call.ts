// One call from request headers to grpc-status: the deadline timer, reading and decoding request
// messages (in order, decompressing where flagged), running the handler by its shape, writing its
// responses, and mapping whatever ends the call to a status. The first status wins; anything the
// handler does after that (a late return, a write) is dropped.
import type { IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { ErrorMapper, Logger } from "../../index.js";
import { decode, encode, type DecodedMessage, type MethodDescriptor } from "../proto/index.js";
import { GrpcCall } from "./call.js";
import { decompressMessage } from "./decompress.js";
import { mapHandlerError } from "./error-mapping.js";
import { GrpcError } from "./grpc-error.js";
import type { MethodHandler } from "./handlers.js";
import { InboundMessages } from "./inbound-messages.js";
import { frameMessage, MessageReader, SECOND_MESSAGE, type FramedMessage } from "./message-framing.js";
import { parseIncomingMetadata } from "./metadata.js";
import { ResponseStream } from "./response-stream.js";
import { GrpcStatus, type GrpcStatusCode } from "./status.js";

// setTimeout's ceiling (about 24.8 days); a longer deadline simply never fires.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CallSettings {
  readonly maxReceiveMessageLength: number;
  readonly production: boolean;
  readonly logger: Logger;
  /** GrpcServerOptions.errorMappers. */
  readonly errorMappers: readonly ErrorMapper[];
}

export interface CallRequest {
  readonly stream: ServerHttp2Stream;
  readonly headers: IncomingHttpHeaders;
  readonly method: MethodDescriptor;
  readonly handler: MethodHandler | undefined;
  /** Validated by the server: identity, gzip or deflate. */
  readonly encoding: string;
  /** From grpc-timeout, in ms; undefined without one. */
  readonly timeoutMs: number | undefined;
}

/** A running call, as the server tracks it for shutdown. */
export interface ActiveCall {
  /** Server shutdown past its drain timeout: abort the signal and reset the stream. */
  cancel(): void;
}

export function runCall(request: CallRequest, settings: CallSettings): ActiveCall {
  const { stream, method } = request;
  const response = new ResponseStream(stream);
  const controller = new AbortController();
  const inbound = new InboundMessages<DecodedMessage>({ resume: () => pump() });
  // Unary and server-streaming methods take one message: the reader refuses a second at its prefix.
  const reader = new MessageReader(settings.maxReceiveMessageLength, method.requestStream ? Infinity : 1);

  /** End with a status the server chose; non-OK aborts the handler's signal. */
  const end = (code: GrpcStatusCode, message: string, metadata?: Record<string, string>): void => {
    if (timer !== undefined) clearTimeout(timer);
    if (!response.finish(code, message, metadata)) return;
    if (code !== GrpcStatus.OK) {
      const reason = new GrpcError(code, message);
      inbound.fail(reason);
      controller.abort(reason);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let deadline: Date | null = null;
  if (request.timeoutMs !== undefined) {
    deadline = new Date(Date.now() + request.timeoutMs);
    if (request.timeoutMs <= MAX_TIMER_MS) {
      timer = setTimeout(() => end(GrpcStatus.DEADLINE_EXCEEDED, "Deadline exceeded"), request.timeoutMs);
    }
  }

  const socket = stream.session?.socket;
  const address = socket?.remoteAddress ?? "unknown";
  const peer = `${address.includes(":") ? `[${address}]` : address}:${socket?.remotePort ?? 0}`;
  const call = new GrpcCall({
    method,
    metadata: parseIncomingMetadata(request.headers),
    signal: controller.signal,
    deadline,
    peer,
    response,
  });

  // Messages decode one after another: a gzip message still inflating holds back the next.
  let decoding: Promise<void> = Promise.resolve();
  const protocolFailure = (err: unknown): void => {
    const e = err instanceof GrpcError ? err : new GrpcError(GrpcStatus.INTERNAL, "Error reading request");
    end(e.code, e.message === SECOND_MESSAGE ? `${e.message} for method ${method.path}` : e.message);
  };
  const decodeFrame = async (frame: FramedMessage, admitted: number): Promise<void> => {
    if (response.finished) return;
    const bytes = frame.compressed ? await decompressMessage(frame.data, request.encoding, settings.maxReceiveMessageLength) : frame.data;
    let message: DecodedMessage;
    try {
      message = decode(method.requestType, bytes);
    } catch {
      throw new GrpcError(GrpcStatus.INTERNAL, "Error deserializing request");
    }
    inbound.push(message, admitted, bytes.byteLength);
  };

  // Take complete messages off the reader while the handler's queue has room; when it has none,
  // pause the stream (HTTP/2 flow control then holds the client back) until inbound calls pump
  // again. The client's half-close is handled once every message before it was taken.
  let paused = false;
  let halfClosed = false;
  let endQueued = false;
  const pump = (): void => {
    for (;;) {
      if (response.finished) return;
      if (!inbound.hasRoom()) {
        if (!paused) {
          paused = true;
          stream.pause();
        }
        return;
      }
      let frame: FramedMessage | undefined;
      try {
        frame = reader.next();
      } catch (err) {
        protocolFailure(err);
        return;
      }
      if (frame === undefined) break;
      const admitted = frame.compressed ? settings.maxReceiveMessageLength : frame.data.byteLength;
      inbound.admit(admitted);
      const taken = frame;
      decoding = decoding.then(() => decodeFrame(taken, admitted)).catch(protocolFailure);
    }
    if (halfClosed) {
      if (endQueued) return;
      endQueued = true;
      decoding = decoding.then(() => {
        if (response.finished) return;
        reader.end();
        inbound.end();
      }).catch(protocolFailure);
    } else if (paused) {
      paused = false;
      stream.resume();
    }
  };

  stream.on("data", (chunk: Buffer) => {
    if (response.finished) return;
    reader.push(chunk);
    pump();
  });
  stream.on("end", () => {
    halfClosed = true;
    pump();
  });
  stream.on("close", () => {
    // The stream closed before a status went out: the client cancelled (RST_STREAM) or the
    // connection dropped.
    if (timer !== undefined) clearTimeout(timer);
    if (response.finished) return;
    const reason = new GrpcError(GrpcStatus.CANCELLED, "Call cancelled");
    response.cancel();
    inbound.fail(reason);
    controller.abort(reason);
  });
  stream.on("error", () => {
    // Reported through 'close'; without a listener the error would be thrown.
  });

  const handlerFailed = (err: unknown): void => {
    if (response.finished) return;
    const mapped = mapHandlerError(err, settings.production, settings.errorMappers);
    const trailers: Record<string, string | Buffer | readonly (string | Buffer)[]> = { ...mapped.metadata };
    if (mapped.errorId !== undefined) {
      trailers["error-id"] = mapped.errorId;
      settings.logger.log(50, "grpc handler failed", {
        error_id: mapped.errorId, method: method.path, grpc_code: mapped.code, detail: mapped.detail, err: mapped.cause,
      });
    }
    if (timer !== undefined) clearTimeout(timer);
    if (response.finish(mapped.code, mapped.message, trailers)) {
      const reason = new GrpcError(mapped.code, mapped.message);
      inbound.fail(reason);
      controller.abort(reason);
    }
  };

  const writeResponse = async (value: unknown): Promise<void> => {
    if (response.finished) return;
    if (value === null || typeof value !== "object") {
      throw new TypeError(`grpc: the handler of ${method.path} gave ${value === null ? "null" : typeof value} instead of a response message`);
    }
    await response.write(frameMessage(encode(method.responseType, value)));
  };

  const run = async (): Promise<void> => {
    const handler = request.handler;
    if (handler === undefined) {
      end(GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${method.path}`);
      return;
    }
    let input: DecodedMessage | AsyncIterable<DecodedMessage> = inbound;
    if (!method.requestStream) {
      let only: DecodedMessage | undefined;
      try {
        only = await inbound.only();
      } catch {
        return; // the status is out already
      }
      if (only === undefined) {
        end(GrpcStatus.UNIMPLEMENTED, `Received no request message for method ${method.path}`);
        return;
      }
      input = only;
    }
    try {
      const result = handler(input, call);
      if (!method.responseStream) {
        await writeResponse(await result);
      } else {
        if (!isIterable(result)) throw new TypeError(`grpc: the handler of ${method.path} must return an (async) iterable of responses`);
        for await (const value of result) {
          if (response.finished) break;
          await writeResponse(value);
        }
      }
      end(GrpcStatus.OK, "");
    } catch (err) {
      handlerFailed(err);
    }
  };

  void run().catch((err: unknown) => handlerFailed(err));
  return {
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      const reason = new GrpcError(GrpcStatus.UNAVAILABLE, "Server shutting down");
      response.cancel();
      inbound.fail(reason);
      controller.abort(reason);
    },
  };
}

function isIterable(value: unknown): value is AsyncIterable<unknown> | Iterable<unknown> {
  return value !== null && typeof value === "object" && (Symbol.asyncIterator in value || Symbol.iterator in value);
}
