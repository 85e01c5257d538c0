// The hostile corpus's harness: send exact bytes over a raw socket (each case from its own
// loopback address, so per-client rate limits never mask what is being tested), read every
// answer that comes back, and check it against the case's expectation and the corpus rules:
// a 4xx in the uniform error body (never a 5xx, never a hang), no smuggled second answer, no
// stack trace or file path in production bodies, no prototype pollution, and a canary request
// on a fresh connection still served afterwards.
import assert from "node:assert/strict";
import { connect } from "node:net";

export interface Answer {
  status: number;
  /** Lowercase names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
}

export interface Exchange {
  /** Every complete answer on the connection, in order. */
  answers: Answer[];
  /** The connection produced no complete answer before the deadline. */
  hung: boolean;
  raw: string;
}

export interface HostileCase {
  name: string;
  /** The exact bytes to send. */
  raw: string | Buffer;
  /**
   * What must come back. Default: one uniform 4xx. A number or list: that status (still uniform
   * when 4xx). A function: a custom check for the cases where a 2xx is right (a dropped
   * prototype key, a CORS request that simply gets no allow headers).
   */
  expect?: number | readonly number[] | ((a: Answer) => void);
  /** Which server answers it (default the sample; "kitchen" for parsers the sample does not expose). */
  app?: "sample" | "kitchen";
  /** Run in one environment only (default both). */
  only?: "development" | "production";
  /**
   * A second request on a new connection after the first answer, judged by `check` (for cache
   * poisoning: what the first request may have stored must not reach the second one).
   */
  followUp?: { raw: string | Buffer; check: (second: Answer, first: Answer) => void };
}

export interface HostileClass {
  /** The folder's name: "smuggling", "paths", ... */
  name: string;
  cases: HostileCase[];
}

/** One request head + body with CRLF line ends; `headers` in order, as given. */
export function http(method: string, target: string, headers: ReadonlyArray<readonly [string, string]> = [], body: string | Buffer = ""): Buffer {
  let head = `${method} ${target} HTTP/1.1\r\nHost: keel.test\r\n`;
  for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
  const b = typeof body === "string" ? Buffer.from(body, "latin1") : body;
  if (b.length > 0 && !headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) head += `Content-Length: ${b.length}\r\n`;
  return Buffer.concat([Buffer.from(head + "\r\n", "latin1"), b]);
}

/** Parse as many complete HTTP/1.1 answers as `buf` holds. */
export function parseAnswers(buf: Buffer): Answer[] {
  const out: Answer[] = [];
  let off = 0;
  for (;;) {
    const end = buf.indexOf("\r\n\r\n", off, "latin1");
    if (end === -1) return out;
    const head = buf.subarray(off, end).toString("latin1").split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? "");
    if (m === null) return out;
    const headers: Record<string, string> = Object.create(null);
    for (const line of head.slice(1)) {
      const i = line.indexOf(":");
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = headers[k] === undefined ? v : headers[k] + (k === "set-cookie" ? "\n" : ", ") + v;
    }
    const status = Number(m[1]);
    let p = end + 4;
    let body: Buffer;
    const bodyless = status === 204 || status === 304 || status < 200;
    if (bodyless) body = Buffer.alloc(0);
    else if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
      const parts: Buffer[] = [];
      for (;;) {
        const le = buf.indexOf("\r\n", p, "latin1");
        if (le === -1) return out;
        const size = parseInt(buf.subarray(p, le).toString("latin1"), 16);
        if (!Number.isFinite(size)) return out;
        p = le + 2;
        if (size === 0) {
          const trailerEnd = buf.indexOf("\r\n", p, "latin1");
          if (trailerEnd === -1) return out;
          p = trailerEnd + 2;
          break;
        }
        if (buf.length < p + size + 2) return out;
        parts.push(buf.subarray(p, p + size));
        p += size + 2;
      }
      body = Buffer.concat(parts);
    } else if (headers["content-length"] !== undefined) {
      const n = Number(headers["content-length"]);
      if (buf.length < p + n) return out;
      body = buf.subarray(p, p + n);
      p += n;
    } else {
      body = buf.subarray(p); // until close
      p = buf.length;
    }
    out.push({ status, headers, body: body.toString("utf8") });
    off = p;
  }
}

let nextAddress = 0;
/** A fresh loopback source address per exchange (127.77.x.y). */
function sourceAddress(): string {
  const n = nextAddress++ % 60_000;
  return `127.77.${(n >> 8) & 255}.${(n & 255) || 1}`;
}

/**
 * Send `raw`, then collect answers until the server closes, or `settleMs` after the first
 * complete answer (to see a smuggled second one), or `deadlineMs` (a hang).
 */
export function exchange(port: number, raw: string | Buffer, deadlineMs = 5_000, settleMs = 150): Promise<Exchange> {
  return new Promise((resolve) => {
    const sock = connect({ port, host: "127.0.0.1", localAddress: sourceAddress() });
    const chunks: Buffer[] = [];
    let settleTimer: NodeJS.Timeout | null = null;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      if (settleTimer !== null) clearTimeout(settleTimer);
      sock.destroy();
      const buf = Buffer.concat(chunks);
      const answers = parseAnswers(buf);
      resolve({ answers, hung: answers.length === 0, raw: buf.toString("latin1") });
    };
    const deadline = setTimeout(finish, deadlineMs);
    sock.on("data", (c: Buffer) => {
      chunks.push(c);
      if (settleTimer === null && parseAnswers(Buffer.concat(chunks)).length > 0) settleTimer = setTimeout(finish, settleMs);
    });
    sock.on("close", finish);
    sock.on("error", () => {}); // a reset after the answer is judged by what was read
    sock.write(typeof raw === "string" ? Buffer.from(raw, "latin1") : raw);
  });
}

const STACK_OR_PATH = /\n\s+at |\/work\/|node_modules|\.ts:\d|\blib\/[a-z]/;

/** The uniform error body: {"error":{"type","message"},"error_id":"err_<32 hex>"}. */
export function assertUniformError(a: Answer, label: string): void {
  assert.match(a.headers["content-type"] ?? "", /^application\/json/, `${label}: content-type ${a.headers["content-type"]}`);
  let body: { error?: { type?: unknown; message?: unknown }; error_id?: unknown };
  try {
    body = JSON.parse(a.body) as typeof body;
  } catch {
    assert.fail(`${label}: body is not JSON: ${a.body.slice(0, 120)}`);
  }
  assert.deepEqual(Object.keys(body).sort(), ["error", "error_id"], `${label}: top-level keys of ${a.body.slice(0, 120)}`);
  assert.ok(Object.keys(body.error ?? {}).every((k) => k === "type" || k === "message" || k === "fields"), `${label}: error keys of ${a.body.slice(0, 120)}`);
  assert.equal(typeof body.error?.type, "string", `${label}: error.type`);
  assert.equal(typeof body.error?.message, "string", `${label}: error.message`);
  assert.match(String(body.error_id), /^err_[0-9a-f]{32}$/, `${label}: error_id`);
}

/** How an answer looks in a failure message: status, then the head of the body. */
export function showAnswer(a: Answer): string {
  return `${a.status} ${JSON.stringify(a.body.slice(0, 120))}`;
}

/** Judge one exchange: the corpus rules plus the case's own expectation. */
export function judge(c: HostileCase, ex: Exchange, label: string): void {
  assert.ok(!ex.hung, `${label}: no answer within the deadline (raw: ${JSON.stringify(ex.raw.slice(0, 120))})`);
  assert.equal(ex.answers.length, 1, `${label}: ${ex.answers.length} answers (a smuggled request was answered?): ${ex.answers.map(showAnswer).join(" | ")}`);
  const a = ex.answers[0]!;
  const seen = `${label} [got ${showAnswer(a)}]`;
  assert.ok(a.status < 500, `${seen}: a 5xx`);
  assert.doesNotMatch(a.body, STACK_OR_PATH, `${seen}: the body shows a stack or a path`);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined, `${seen}: Object.prototype was polluted`);
  const expect = c.expect;
  if (typeof expect === "function") {
    try {
      expect(a);
    } catch (err) {
      assert.fail(`${seen}: ${(err as Error).message.split("\n")[0]}`);
    }
    return;
  }
  if (typeof expect === "number") assert.equal(a.status, expect, `${seen}: expected ${expect}`);
  else if (Array.isArray(expect)) assert.ok(expect.includes(a.status), `${seen}: expected one of ${expect.join(",")}`);
  else assert.ok(a.status >= 400 && a.status < 500, `${seen}: expected a 4xx`);
  if (a.status >= 400) assertUniformError(a, seen);
}
