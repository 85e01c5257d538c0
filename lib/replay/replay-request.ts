// Re-sending one recorded request to another server (a staging copy, a new build) and collecting
// its answer in the recorded form, so diffReplay compares like with like.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { captureBody } from "./body-capture.js";
import type { RecordedHeaders, RecordedResponse, ReplayRecord } from "./record.js";
import { recordHeaders, REDACTED, secretHeaderSet } from "./redaction.js";
import { ReplayError } from "./replay-error.js";

export interface ReplayTargetOptions {
  /** The server's origin: `http(s)://host[:port]`, nothing after it. */
  target: string;
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Most response bytes read (default 8 MiB); more is cut and flagged `body_truncated`. */
  maxResponseBody?: number;
  /** Headers to add or replace (the target's own credentials: recorded secrets are never sent). */
  headers?: Readonly<Record<string, string>>;
  /** Extra header names to redact in the answer (the defaults always are). */
  redactHeaders?: readonly string[];
}

/** What the target answered, shaped like a recorded response. */
export type ReplayedResponse = RecordedResponse;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_REPLAY_BODY = 8 * 1024 * 1024;

/**
 * Not forwarded: connection-level headers (RFC 9110 7.6.1), the framing the client recomputes,
 * the recorded Host (the target has its own), and Accept-Encoding (so the answer comes back
 * uncompressed, as recorded bodies are).
 */
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "host",
  "content-length",
  "expect",
  "accept-encoding",
  "http2-settings",
  // A replay is a new request, not a part of the recorded one's trace.
  "traceparent",
  "tracestate",
]);

/** The target's origin, or a ReplayError: only http(s), no credentials, path, query or fragment. */
export function parseReplayTarget(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ReplayError(`replay target ${JSON.stringify(target)} is not a URL`, true);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ReplayError(`replay target must be http or https, got ${url.protocol}`, true);
  if (url.username !== "" || url.password !== "") throw new ReplayError("replay target must not carry credentials", true);
  if (url.pathname !== "/" || /[?#]/.test(target) || /^[a-z]+:\/\/[^/]*\/./i.test(target)) {
    throw new ReplayError("replay target must be an origin (scheme, host, port) without a path, query or fragment", true);
  }
  return url;
}

/** The headers to send: recorded ones minus hop-by-hop, pseudo-headers and redacted values. */
export function forwardedHeaders(recorded: RecordedHeaders, extra: Readonly<Record<string, string>> = {}): Record<string, string | string[]> {
  const connectionListed = new Set(
    String(recorded["connection"] ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s !== ""),
  );
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const name of Object.keys(recorded)) {
    const value = recorded[name]!;
    if (name.startsWith(":") || NOT_FORWARDED.has(name) || connectionListed.has(name)) continue;
    if (value === REDACTED || (Array.isArray(value) && value.includes(REDACTED))) continue;
    out[name] = value;
  }
  for (const name of Object.keys(extra)) out[name.toLowerCase()] = extra[name]!;
  return out;
}

function requestBody(record: ReplayRecord): Buffer | null {
  const req = record.request;
  if (req.body_omitted || req.body_truncated) {
    throw new ReplayError(`recording ${record.id}: the request body was not recorded in full (${req.body ?? "truncated"}), so it cannot be replayed`, true);
  }
  return req.body === null ? null : Buffer.from(req.body, "utf8");
}

/** Send the recorded request to `target` and collect the answer. */
export async function replayRecord(record: ReplayRecord, options: ReplayTargetOptions): Promise<ReplayedResponse> {
  const origin = parseReplayTarget(options.target);
  const body = requestBody(record);
  const headers = forwardedHeaders(record.request.headers, options.headers);
  if (body !== null) headers["content-length"] = String(body.length);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const cap = options.maxResponseBody ?? DEFAULT_MAX_REPLAY_BODY;
  const secrets = secretHeaderSet(options.redactHeaders);
  const target = record.request.path + (record.request.query === "" ? "" : "?" + record.request.query);
  const send = origin.protocol === "https:" ? httpsRequest : httpRequest;
  return await new Promise<ReplayedResponse>((resolve, reject) => {
    const req = send(origin, { method: record.request.method, path: target, headers, agent: false, signal: AbortSignal.timeout(timeoutMs) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (cut) return;
        if (size > cap) {
          cut = true;
          chunks.push(chunk.subarray(0, chunk.length - (size - cap)));
          res.destroy();
          finish();
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", finish);
      res.on("error", (err) => (cut ? undefined : reject(failure(err))));
      let done = false;
      function finish(): void {
        if (done) return;
        done = true;
        const h = res.headers as IncomingHttpHeaders;
        const captured = captureBody({
          bytes: Buffer.concat(chunks),
          contentType: h["content-type"],
          contentEncoding: h["content-encoding"],
          cap,
          policy: null,
          text: true,
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: recordHeaders(h, secrets),
          ...captured,
          ...(cut ? { body_size: null, body_truncated: true } : {}),
        });
      }
    });
    const failure = (err: Error): ReplayError => new ReplayError(`replay to ${origin.origin} failed: ${err.name === "TimeoutError" || err.name === "AbortError" ? `no answer within ${timeoutMs} ms` : err.message}`, false, { cause: err });
    req.on("error", (err) => reject(failure(err)));
    req.end(body ?? undefined);
  });
}
