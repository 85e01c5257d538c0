// The code of the export worker (worker-transport.ts), as an ES module source started from a
// `data:` URL: that works the same from the TypeScript sources and from the single-file bundle
// (there is no worker file to find), and keeps the bundle free of require(). Node builtins only.
// It does what
// http-post.ts does in-process, one POST per message:
//   in:  { id, url, headers, timeoutMs, bytes: SharedArrayBuffer (shared) or ArrayBuffer
//          (transferred), offset, length }
//   out: { id, status, retryAfter, body: Uint8Array, contentType, error: string | null, bodySent,
//          bytes: a transferred ArrayBuffer, transferred back; null for shared memory }
// The answer goes only once the socket is done with the bytes: the whole body was written, or the
// request is closed (an early answer, an error, a timeout); before that a write may still read
// them, and the main thread reuses shared memory as soon as it has the answer.
export const POST_WORKER_SOURCE = `import { parentPort } from "node:worker_threads";
import http from "node:http";
import https from "node:https";
const MAX_RESPONSE_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

parentPort.on("message", (job) => {
  const body = Buffer.from(job.bytes, job.offset, job.length);
  let answer = null;
  let bodySent = false;
  let closed = false;
  let replied = false;
  let timer;
  const reply = () => {
    if (replied || answer === null || !(bodySent || closed)) return;
    replied = true;
    clearTimeout(timer);
    answer.id = job.id;
    answer.bodySent = bodySent;
    const shared = job.bytes instanceof SharedArrayBuffer;
    answer.bytes = shared ? null : job.bytes;
    parentPort.postMessage(answer, shared ? [] : [job.bytes]);
  };
  const settle = (result) => {
    if (answer !== null) return;
    answer = result;
    reply();
  };
  const failed = (error) => settle({ status: 0, retryAfter: undefined, body: EMPTY, contentType: "", error: String(error && error.message || error) });
  let req;
  try {
    const send = job.url.startsWith("https:") ? https.request : http.request;
    req = send(job.url, { method: "POST", headers: job.headers });
  } catch (err) {
    closed = true;
    failed(err);
    return;
  }
  timer = setTimeout(() => {
    failed(new Error("OTLP export timed out after " + job.timeoutMs + " ms"));
    req.destroy();
  }, job.timeoutMs);
  req.on("error", failed);
  req.on("finish", () => { bodySent = true; reply(); });
  req.on("close", () => { closed = true; reply(); });
  req.on("response", (res) => {
    const chunks = [];
    let size = 0;
    res.on("data", (chunk) => {
      if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    res.on("error", failed);
    res.on("end", () => {
      const retryAfter = res.headers["retry-after"];
      // A copy of exact size: the chunks may sit in the shared pool, which cannot be sent whole.
      const received = new Uint8Array(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES));
      settle({
        status: res.statusCode || 0,
        retryAfter: typeof retryAfter === "string" ? retryAfter : undefined,
        body: received,
        contentType: res.headers["content-type"] || "",
        error: null,
      });
    });
  });
  req.end(body);
});
`;
