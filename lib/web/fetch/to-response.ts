// A keel Reply as a Web Response: the same settled reply and headers as app.inject and the
// socket writer produce, with a stream body handed over as a ReadableStream pulled on demand.
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import type { Context, Reply } from "../../index.js";
import { errorReply, finalizeHeaders, isBodyless, isStreamBody, logStreamFailure, settledReply } from "../../plugin.js";

type StreamBody = Readable | AsyncIterable<Uint8Array | string>;

/** Headers of a Reply as Web Headers: an array value (several set-cookie) becomes several entries. */
function webHeaders(headers: Reply["headers"]): Headers {
  const out = new Headers();
  for (const name in headers) {
    // Hop-by-hop: a Response has no connection of its own (finalizeHeaders adds `close` while draining).
    if (name === "connection") continue;
    const v = headers[name]!;
    if (typeof v === "object") for (const item of v) out.append(name, item);
    else out.set(name, String(v));
  }
  return out;
}

/**
 * The body stream, pulled one chunk at a time when the Response's reader asks (highWaterMark 0:
 * nothing is read ahead of the consumer); cancelling it destroys keel's stream. `done` runs once,
 * at its end, error or cancel.
 */
function webStream(ctx: Context, body: StreamBody, done: () => void): ReadableStream<Uint8Array> {
  const source = body instanceof Readable ? body : Readable.from(body, { objectMode: false });
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Uint8Array | string>;
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    done();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done === true) {
            controller.close();
            finish();
          } else {
            controller.enqueue(typeof next.value === "string" ? Buffer.from(next.value, "utf8") : next.value);
          }
        } catch (err) {
          logStreamFailure(ctx, err instanceof Error ? err : new Error(String(err)));
          controller.error(err);
          finish();
        }
      },
      cancel() {
        source.destroy();
        finish();
      },
    },
    { highWaterMark: 0 },
  );
}

function discard(body: Reply["body"]): void {
  if (body instanceof Readable) body.destroy();
}

/** The Response for what the chain answered; `done` runs when its body is over (at once without a stream). */
export function toResponse(ctx: Context, value: Reply, done: () => void): Response {
  let reply = settledReply(ctx, value);
  finalizeHeaders(ctx, reply, false);
  let headers: Headers;
  try {
    headers = webHeaders(reply.headers);
  } catch (err) {
    // A header value Headers refuses (CR/LF, a bad name): the uniform 500, as on the socket.
    discard(reply.body);
    reply = errorReply(ctx, err);
    finalizeHeaders(ctx, reply, false);
    headers = webHeaders(reply.headers);
  }
  const body = reply.body;
  const init = { status: reply.status, headers };
  if (body === null || isBodyless(ctx.method, reply.status)) {
    discard(body);
    done();
    return new Response(null, init);
  }
  if (!isStreamBody(body)) {
    done();
    return new Response(body, init);
  }
  return new Response(webStream(ctx, body, done), init);
}
