// One POST of an export body (JSON or protobuf) over node:http(s), with a per-request timeout and
// an optional AbortSignal (the exporter's shutdown cuts off a POST past its deadline).
// The answer is the status and the headers retry decisions need; the response body is read (to
// free the socket) up to a small bound and kept, as bytes, for partial-success reports.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface PostResult {
  /** 0 when the request failed before a response (network error, timeout). */
  readonly status: number;
  readonly retryAfter: string | undefined;
  /** The response body (at most MAX_RESPONSE_BYTES), empty without a response. */
  readonly body: Buffer;
  /** The response's Content-Type, "" when absent or without a response. */
  readonly contentType: string;
  /** Why no response came, when status is 0. */
  readonly error: Error | null;
  /** The whole body was handed to the operating system ('finish'): the caller may reuse its buffer. */
  readonly bodySent: boolean;
}

const MAX_RESPONSE_BYTES = 64 * 1024;

const NO_BODY = Buffer.alloc(0);

export function postBody(url: URL, headers: Readonly<Record<string, string>>, body: string | Buffer, contentType: string, timeoutMs: number, signal?: AbortSignal): Promise<PostResult> {
  return new Promise((resolve) => {
    const payload = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    let settled = false;
    const done = (result: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(result);
    };
    let bodySent = false;
    const failed = (error: Error): void => done({ status: 0, retryAfter: undefined, body: NO_BODY, contentType: "", error, bodySent });
    let req: ReturnType<typeof send>;
    try {
      req = send(url, {
        method: "POST",
        headers: { ...headers, "content-type": contentType, "content-length": String(payload.length) },
      });
    } catch (err) {
      resolve({ status: 0, retryAfter: undefined, body: NO_BODY, contentType: "", error: err instanceof Error ? err : new Error(String(err)), bodySent: false });
      return;
    }
    const timer = setTimeout(() => {
      failed(new Error(`OTLP export timed out after ${timeoutMs} ms`));
      req.destroy();
    }, timeoutMs);
    timer.unref();
    const onAbort = (): void => {
      failed(new Error("OTLP export aborted"));
      req.destroy();
    };
    if (signal?.aborted === true) {
      onAbort();
      return;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", failed);
    req.on("finish", () => (bodySent = true));
    req.on("response", (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on("error", failed);
      res.on("end", () => {
        const retryAfter = res.headers["retry-after"];
        const type = res.headers["content-type"];
        done({
          status: res.statusCode ?? 0,
          retryAfter: typeof retryAfter === "string" ? retryAfter : undefined,
          body: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES),
          contentType: type ?? "",
          error: null,
          bodySent,
        });
      });
    });
    req.end(payload);
  });
}
