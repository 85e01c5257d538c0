// One declared expectation: what it matches, how often it may answer, and its answer (a reply,
// a reply after a delay, or a fault).
import type { CompiledMatcher } from "./matchers.js";
import type { ReceivedRequest } from "./received.js";

export interface MockReply {
  status?: number;
  headers?: Readonly<Record<string, string | number | readonly string[]>>;
  /** A string or bytes as is; any other value as JSON (`content-type: application/json`). */
  body?: unknown;
}

/** "reset": the connection is reset (RST) unanswered; "close": it is closed (FIN) unanswered. */
export type MockFault = "reset" | "close";

export type MockAnswer =
  | { kind: "reply"; reply: MockReply | ((request: ReceivedRequest) => MockReply); delayMs: number }
  | { kind: "fault"; fault: MockFault; delayMs: number };

/**
 * What `mock.expect(matcher)` returns: say how often (`once()` is the default, `times(n)`,
 * `always()`), optionally `delay(ms)`, then the answer: `reply(...)` or `fault(...)`.
 */
export class Expectation {
  readonly matcher: CompiledMatcher;
  /** How many requests it may answer (Infinity: always). */
  limit = 1;
  /** How many it answered. */
  calls = 0;
  answer: MockAnswer | null = null;
  private delayMs = 0;

  constructor(matcher: CompiledMatcher) {
    this.matcher = matcher;
  }

  get description(): string {
    return this.matcher.description;
  }

  /** Answer one request (the default). */
  once(): this {
    return this.times(1);
  }

  /** Answer `n` requests, then stop matching. */
  times(n: number): this {
    if (!Number.isInteger(n) || n < 1) throw new TypeError(`mockServer: times(n) needs a whole number of at least 1, got ${n}`);
    this.limit = n;
    return this;
  }

  /** Answer every matching request (verify() then asks for at least one). */
  always(): this {
    this.limit = Infinity;
    return this;
  }

  /** Wait `ms` before the answer (reply or fault). */
  delay(ms: number): this {
    if (!Number.isFinite(ms) || ms < 0) throw new TypeError(`mockServer: delay(ms) needs a finite number of ms >= 0, got ${ms}`);
    this.delayMs = ms;
    return this;
  }

  /** Answer `status` with `body` (JSON unless a string or bytes) and `headers`, or what `fn` returns. */
  reply(status: number, body?: unknown, headers?: MockReply["headers"]): this;
  reply(fn: (request: ReceivedRequest) => MockReply): this;
  reply(a: number | ((request: ReceivedRequest) => MockReply), body?: unknown, headers?: MockReply["headers"]): this {
    if (typeof a === "number" && (!Number.isInteger(a) || a < 200 || a > 599)) throw new TypeError(`mockServer: reply status must be 200-599, got ${a}`);
    const reply = typeof a === "function" ? a : { status: a, body, ...(headers === undefined ? {} : { headers }) };
    this.answer = { kind: "reply", reply, delayMs: this.delayMs };
    return this;
  }

  /** Do not answer: reset the connection ("reset") or close it ("close"). */
  fault(kind: MockFault): this {
    if (kind !== "reset" && kind !== "close") throw new TypeError(`mockServer: fault must be "reset" or "close", got ${JSON.stringify(kind)}`);
    this.answer = { kind: "fault", fault: kind, delayMs: this.delayMs };
    return this;
  }

  /** Still takes requests. */
  get open(): boolean {
    return this.calls < this.limit;
  }

  /** Answered as often as declared (`always`: at least once). */
  get met(): boolean {
    return this.limit === Infinity ? this.calls > 0 : this.calls >= this.limit;
  }
}
