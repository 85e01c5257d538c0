// Pieces every benchmark server shares: the ready/pending protocol with bench/run.mjs, the
// uniform error body (keel's shape, so the error cells do the same work everywhere), a linear
// email check for the hand-validated servers, and the hand-written production stack
// (request id, CORS, security headers, JSON access log) used by raw node:http, Fastify and Hono.
import { randomUUID } from "node:crypto";

// --- protocol with the harness -----------------------------------------------------------------

/** Tell the harness the server listens (one line on stderr; stdout is /dev/null). */
export function announceReady(port: number): void {
  process.stderr.write(`BENCH_READY ${JSON.stringify({ port, pid: process.pid })}\n`);
}

/** Tell the harness this implementation cannot serve the requested profile yet, then exit. */
export function announcePending(reason: string): void {
  process.stderr.write(`BENCH_PENDING ${JSON.stringify({ reason })}\n`);
  process.exit(0);
}

/**
 * Exit cleanly on SIGTERM/SIGINT so `--cpu-prof` can write its profile, and exit when the harness
 * that started this server is gone (an orphan would keep a port and a CPU busy).
 */
export function exitOnSignal(): void {
  const stop = () => process.exit(0);
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 2000).unref();
}

/** `--stack`: serve GET /hello behind the production stack. */
export function wantsProductionStack(argv: readonly string[] = process.argv): boolean {
  return argv.includes("--stack");
}

// --- uniform errors ----------------------------------------------------------------------------

export interface BenchErrorField {
  field: string;
  code: string;
  message: string;
}

/** `err_` + 32 hex digits, the same work keel does per error. */
export function benchErrorId(): string {
  return "err_" + randomUUID().replaceAll("-", "");
}

export function benchErrorBody(type: string, message: string, fields?: BenchErrorField[]): string {
  const error: { type: string; message: string; fields?: BenchErrorField[] } = { type, message };
  if (fields !== undefined) error.fields = fields;
  return JSON.stringify({ error, error_id: benchErrorId() });
}

// --- validation by hand (raw node:http and Hono's fallback) ------------------------------------

function isSpaceOrControl(code: number): boolean {
  return code <= 32 || code === 127;
}

/** A linear, allocation-free plausibility check: one "@", a dotted domain, no spaces. */
export function looksLikeEmail(s: string): boolean {
  const n = s.length;
  if (n < 3 || n > 254) return false;
  const at = s.indexOf("@");
  if (at <= 0 || at > 64 || at !== s.lastIndexOf("@")) return false;
  const dot = s.indexOf(".", at + 2);
  if (dot === -1 || s.charCodeAt(n - 1) === 46 /* "." */) return false;
  for (let i = 0; i < n; i++) if (isSpaceOrControl(s.charCodeAt(i))) return false;
  return true;
}

/** The fields that fail the POST /users contract; empty when the body is valid. */
export function checkCreateUser(body: unknown): BenchErrorField[] {
  const fields: BenchErrorField[] = [];
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    fields.push({ field: "", code: "type", message: "must be an object" });
    return fields;
  }
  const b = body as { email?: unknown; password?: unknown };
  if (typeof b.email !== "string") fields.push({ field: "email", code: b.email === undefined ? "required" : "type", message: "must be a string" });
  else if (!looksLikeEmail(b.email)) fields.push({ field: "email", code: "email", message: "must be a valid email address" });
  if (typeof b.password !== "string") fields.push({ field: "password", code: b.password === undefined ? "required" : "type", message: "must be a string" });
  else if (b.password.length < 8) fields.push({ field: "password", code: "length", message: "must be at least 8 characters" });
  return fields;
}

/** Decimal digits only, at most 15 (safe integer range): the u64 path parameter, by hand. */
export function parseIdParam(s: string): number {
  const n = s.length;
  if (n === 0 || n > 15) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return Number(s);
}

// --- the production stack, by hand -------------------------------------------------------------

/** The Origin the scenario-4 load sends; the only one the CORS policy allows. */
export const ALLOWED_ORIGIN = "https://app.example.com";

/** Security headers, as a careful deployment sets them (the same set for every implementation). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=31536000; includeSubDomains",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "x-dns-prefetch-control": "off",
  "x-permitted-cross-domain-policies": "none",
  "origin-agent-cluster": "?1",
};

function isRequestIdChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 95;
}

/** An incoming x-request-id is kept when short and plain; otherwise a fresh UUID. */
export function requestIdFor(incoming: string | string[] | undefined | null): string {
  if (typeof incoming === "string" && incoming.length > 0 && incoming.length <= 64) {
    let ok = true;
    for (let i = 0; i < incoming.length && ok; i++) ok = isRequestIdChar(incoming.charCodeAt(i));
    if (ok) return incoming;
  }
  return randomUUID();
}

/** One JSON access-log line per request on stdout (the harness points stdout at /dev/null). */
export function writeAccessLog(reqId: string, method: string, path: string, status: number, startMs: number): void {
  const line = JSON.stringify({
    level: 30,
    time: Date.now(),
    msg: "request",
    req_id: reqId,
    method,
    path,
    status,
    duration_ms: Math.round((performance.now() - startMs) * 1000) / 1000,
  });
  process.stdout.write(line + "\n");
}

// --- the `real` scenario (issue 34): auth, rate limit, CORS, security headers, ids, access log --

/** `--real`: serve the routes behind the real-world stack. */
export function wantsRealStack(argv: readonly string[] = process.argv): boolean {
  return argv.includes("--real");
}

/**
 * HS256 secret every real-stack server verifies with. bench/harness/scenarios.mjs signs the
 * load's token with the same string (a mismatch shows as 401s in the pre-flight check).
 */
export const REAL_JWT_SECRET = "keel-bench-real-scenario-hs256-secret-0123456789";

/**
 * The memory rate limit of the real stack: so large that the load never meets a 429 (one
 * client address sends every request), so the cost measured is the limiter's bookkeeping.
 */
export const REAL_RATE_LIMIT = { max: 1_000_000_000, windowMs: 60_000 } as const;
