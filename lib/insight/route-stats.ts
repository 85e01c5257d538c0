// What is recorded for one route (pattern and method): a fixed set of counters, one latency
// histogram and a bounded table of error types. Its size does not grow with traffic.
import { isBodyless } from "../plugin.js";
import { Reply } from "../index.js";
import { LatencyHistogram } from "./histogram.js";
import { TopCounts, type NameCount } from "./top-counts.js";

export type StatusClass = "1xx" | "2xx" | "3xx" | "4xx" | "5xx";
const PERCENTILES = [0.5, 0.95, 0.99] as const;

/** One route as the admin endpoint and `insightStats()` show it. */
export interface RouteInsight {
  method: string;
  /** The route pattern (`/users/{id}`), or "(unmatched)" / "(other routes)" for the shared buckets. */
  route: string;
  /** Requests answered (in-flight ones are not counted until they are). */
  count: number;
  /** Answers by status class (all five listed, 0 when none). */
  status: Record<StatusClass, number>;
  /** Nearest-rank percentiles of the time spent inside the layer, ms; null before any answer. */
  latency_ms: { p50: number | null; p95: number | null; p99: number | null };
  in_flight: number;
  bytes: { request: number; response: number };
  /** The most frequent error types (replies made from an ApiError), most frequent first. */
  errors: NameCount[];
}

/** A declared Content-Length (request or reply), or 0 when absent or not a length. */
export function declaredLength(value: string | number | readonly string[] | undefined): number {
  if (value === undefined) return 0;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * The body bytes this reply will put on the wire, as far as the layer can know: its
 * Content-Length, else the length of a string or byte body. Headers-only answers (HEAD, 204, 304,
 * 1xx) carry none. A stream without Content-Length, or a JSON reply whose text a layer has not
 * written yet, counts 0 (measuring it would mean writing it here, twice).
 */
export function replyBodyBytes(method: string, reply: Reply): number {
  if (isBodyless(method, reply.status)) return 0;
  const declared = reply.headers["content-length"];
  if (declared !== undefined) return declaredLength(declared);
  if (reply.pendingJson) return 0;
  const body = reply.body;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
}

export class RouteStats {
  count = 0;
  inFlight = 0;
  requestBytes = 0;
  responseBytes = 0;
  private readonly statusCounts = new Float64Array(5);
  private readonly latency = new LatencyHistogram();
  private readonly errors: TopCounts;

  constructor(
    readonly method: string,
    readonly route: string,
    topErrors: number,
  ) {
    this.errors = new TopCounts(topErrors);
  }

  /** One answered request: its reply, the request's method, and the time it took (ms). */
  record(reply: Reply, method: string, elapsedMs: number): void {
    this.count++;
    this.latency.recordMs(elapsedMs);
    // A layer may hand back a plain value, which the writer turns into a Reply later (settledReply).
    if (!(reply instanceof Reply)) return;
    const cls = (reply.status / 100) | 0;
    if (cls >= 1 && cls <= 5) this.statusCounts[cls - 1]!++;
    this.responseBytes += replyBodyBytes(method, reply);
    const error = reply.error;
    if (error !== null) this.errors.add(error.type);
  }

  /** Forget what was recorded; requests in flight stay counted as such. */
  clear(): void {
    this.count = 0;
    this.requestBytes = 0;
    this.responseBytes = 0;
    this.statusCounts.fill(0);
    this.latency.clear();
    this.errors.clear();
  }

  snapshot(): RouteInsight {
    const c = this.statusCounts;
    const status: Record<StatusClass, number> = { "1xx": c[0]!, "2xx": c[1]!, "3xx": c[2]!, "4xx": c[3]!, "5xx": c[4]! };
    const [p50, p95, p99] = this.latency.percentilesMs(PERCENTILES);
    return {
      method: this.method,
      route: this.route,
      count: this.count,
      status,
      latency_ms: { p50: p50 ?? null, p95: p95 ?? null, p99: p99 ?? null },
      in_flight: this.inFlight,
      bytes: { request: this.requestBytes, response: this.responseBytes },
      errors: this.errors.entries(),
    };
  }
}
