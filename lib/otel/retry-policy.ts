// When an OTLP export is tried again (the OTLP/HTTP spec's "retryable" answers) and how long to
// wait: Retry-After when the collector sends one, else the shared full-jitter backoff.
import { fullJitterDelay, type BackoffPolicy } from "../shared/backoff.js";

/** 429 Too Many Requests, 502, 503, 504: the collector may accept the same batch later. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Status 0 stands for "no response" (network error, timeout), which is retried too. */
export function isRetryable(status: number): boolean {
  return status === 0 || RETRYABLE_STATUSES.has(status);
}

export interface RetryOptions {
  /** Tries per batch, the first included (default 5). */
  maxAttempts?: number;
  /** Ceiling of the first backoff, ms (default 1000). */
  initialBackoffMs?: number;
  /** Largest wait between tries, ms, Retry-After included (default 30000). */
  maxBackoffMs?: number;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly backoff: Readonly<BackoffPolicy>;
}

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const maxAttempts = options.maxAttempts ?? 5;
  const baseMs = options.initialBackoffMs ?? 1000;
  const maxMs = options.maxBackoffMs ?? 30_000;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new TypeError("otlpExporter(): retry.maxAttempts must be an integer >= 1");
  if (!(baseMs >= 0) || !(maxMs >= 0)) throw new TypeError("otlpExporter(): retry backoffs must be >= 0 ms");
  return { maxAttempts, backoff: { baseMs, factor: 2, maxMs } };
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The wait before try `attempt + 1` after failed try `attempt` (1-based). */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfter: string | undefined): number {
  const asked = parseRetryAfter(retryAfter);
  return Math.min(policy.backoff.maxMs, asked ?? fullJitterDelay(attempt, policy.backoff));
}
