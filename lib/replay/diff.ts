// What changed between a recorded answer and its replay: the status, the headers (volatile and
// connection-level ones ignored, recorded secrets never compared) and the body (JSON
// structurally, with the paths of the values that differ; other text line by line).
import { textualKind } from "./body-capture.js";
import { diffJson, type JsonChange } from "./json-diff.js";
import type { RecordedHeaders, RecordedResponse, ReplayRecord } from "./record.js";
import { REDACTED } from "./redaction.js";
import { diffLines, type LineChange } from "./text-diff.js";

export interface ReplayDiffOptions {
  /** More header names whose values change on every answer (besides VOLATILE_HEADERS). */
  ignoreHeaders?: readonly string[];
  /** More JSON property names, at any depth, whose values change on every answer (besides VOLATILE_FIELDS). */
  ignoreFields?: readonly string[];
}

export interface HeaderChange {
  name: string;
  /** null: the header was not in that answer. */
  recorded: string | null;
  replayed: string | null;
}

export type BodyDiff =
  | { kind: "equal" }
  /** Not compared (a body was not recorded in full); does not make the answers differ. */
  | { kind: "skipped"; reason: string }
  | { kind: "json"; changes: JsonChange[]; truncated: boolean }
  | { kind: "text"; changes: LineChange[] };

export interface ReplayDiff {
  equal: boolean;
  /** null when the statuses are the same. */
  status: { recorded: number; replayed: number } | null;
  headers: HeaderChange[];
  body: BodyDiff;
}

/** What the comparison needs of the replayed answer (`replayRecord` returns more). */
export interface ComparableResponse {
  status: number;
  headers: Readonly<Record<string, string | string[]>>;
  body: string | null;
  body_truncated?: boolean;
  body_omitted?: boolean;
}

/**
 * Always ignored: what is new on every answer (the date, the request id, the trace context), what
 * the connection or the transfer decides (framing and keep-alive; the body comparison covers the
 * length), and what describes the server's state at that moment rather than the answer (rate-limit
 * counters, a cache's hit or miss and age). Replaying against the unchanged server: no difference.
 */
export const VOLATILE_HEADERS: readonly string[] = [
  "date",
  "x-request-id",
  "traceparent",
  "tracestate",
  "server-timing",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "ratelimit",
  "ratelimit-remaining",
  "ratelimit-reset",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "age",
  "x-cache",
];

/** JSON properties (any depth) always ignored: the uniform error body's `error_id`, request and trace ids. */
export const VOLATILE_FIELDS: readonly string[] = ["error_id", "request_id", "trace_id"];

function headerText(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(", ") : v;
}

function diffHeaders(recorded: RecordedHeaders, replayed: Readonly<Record<string, string | string[]>>, ignored: ReadonlySet<string>): HeaderChange[] {
  const names = new Set([...Object.keys(recorded), ...Object.keys(replayed)].map((n) => n.toLowerCase()));
  const changes: HeaderChange[] = [];
  for (const name of [...names].sort()) {
    if (ignored.has(name)) continue;
    const a = headerText(recorded[name]);
    const b = headerText(replayed[name]);
    if (a !== null && a.split(", ").every((v) => v === REDACTED)) continue;
    if (a !== b) changes.push({ name, recorded: a, replayed: b });
  }
  return changes;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function diffBody(recorded: RecordedResponse, replayed: ComparableResponse, ignoredFields: ReadonlySet<string>): BodyDiff {
  if (recorded.body_omitted) return { kind: "skipped", reason: `the recorded body was not recorded ${recorded.body ?? ""}`.trim() };
  if (recorded.body_truncated) return { kind: "skipped", reason: `the recorded body was cut at ${Buffer.byteLength(recorded.body ?? "")} bytes` };
  if (replayed.body_omitted === true) return { kind: "skipped", reason: `the replayed body is not text ${replayed.body ?? ""}`.trim() };
  if (replayed.body_truncated === true) return { kind: "skipped", reason: "the replayed body was too long to compare" };
  const a = recorded.body ?? "";
  const b = replayed.body ?? "";
  if (a === b) return { kind: "equal" };
  const isJson = textualKind(headerText(recorded.headers["content-type"]) ?? undefined) === "json" || textualKind(headerText(replayed.headers["content-type"]) ?? undefined) === "json";
  if (isJson) {
    const x = parseJson(a);
    const y = parseJson(b);
    if (x.ok && y.ok) {
      const { changes, truncated } = diffJson(x.value, y.value, ignoredFields);
      return changes.length === 0 ? { kind: "equal" } : { kind: "json", changes, truncated };
    }
  }
  return { kind: "text", changes: diffLines(a, b) };
}

/** Compare a recorded answer (or a whole record) with a replayed one. */
export function diffReplay(recorded: ReplayRecord | RecordedResponse, replayed: ComparableResponse, options: ReplayDiffOptions = {}): ReplayDiff {
  const response = "response" in recorded ? recorded.response : recorded;
  const ignored = new Set([...VOLATILE_HEADERS, ...(options.ignoreHeaders ?? []).map((h) => h.toLowerCase())]);
  const status = response.status === replayed.status ? null : { recorded: response.status, replayed: replayed.status };
  const headers = diffHeaders(response.headers, replayed.headers, ignored);
  const body = diffBody(response, replayed, new Set([...VOLATILE_FIELDS, ...(options.ignoreFields ?? [])]));
  const equal = status === null && headers.length === 0 && (body.kind === "equal" || body.kind === "skipped");
  return { equal, status, headers, body };
}
