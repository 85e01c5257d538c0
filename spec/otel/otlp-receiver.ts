// Test support for spec/otel: a loopback HTTP receiver that records what is POSTed to it and
// answers from a script, and a field-by-field check of OTLP/HTTP JSON trace bodies against the
// protobuf JSON mapping the OTLP spec prescribes.
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's bytes (a protobuf body is not text). */
  raw: Buffer;
  /** Epoch ms when the request arrived. */
  at: number;
}

/** How to answer one request: a status with headers, or "hang" (never answer). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer } | "hang";

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Answers for the next requests, in order; after them, 200 with "{}". */
  script(...answers: Answer[]): void;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Answer[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: raw.toString("utf8"), raw, at: Date.now() });
      for (const w of waiters.filter((w) => received.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const answer = answers.shift() ?? { status: 200, body: "{}" };
      if (answer === "hang") {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body ?? "{}");
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script: (...next) => void answers.push(...next),
    waitFor: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// --- The OTLP JSON check ---------------------------------------------------------------------

export interface CheckedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  flags?: number;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status: { code: number };
}

export interface CheckedRequest {
  resource: Record<string, unknown>;
  scope: { name: string; version: string };
  spans: CheckedSpan[];
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const UINT64 = /^(0|[1-9]\d*)$/;
const INT64 = /^-?(0|[1-9]\d*)$/;

function exactKeys(value: unknown, allowed: readonly string[], required: readonly string[], where: string): Record<string, unknown> {
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value), `${where}: an object`);
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) assert.ok(allowed.includes(k), `${where}: unexpected field ${k}`);
  for (const k of required) assert.ok(k in obj, `${where}: missing ${k}`);
  return obj;
}

/** An AnyValue: exactly one of stringValue | intValue (decimal string) | doubleValue | boolValue; returns it as JS. */
export function checkAnyValue(value: unknown, where: string): string | number | boolean {
  const v = exactKeys(value, ["stringValue", "intValue", "doubleValue", "boolValue"], [], where);
  const keys = Object.keys(v);
  assert.equal(keys.length, 1, `${where}: exactly one value field`);
  if ("stringValue" in v) {
    assert.equal(typeof v["stringValue"], "string", `${where}.stringValue`);
    return v["stringValue"] as string;
  }
  if ("intValue" in v) {
    assert.ok(typeof v["intValue"] === "string" && INT64.test(v["intValue"]), `${where}.intValue: a decimal string`);
    return Number(v["intValue"]);
  }
  if ("doubleValue" in v) {
    assert.ok(typeof v["doubleValue"] === "number" && Number.isFinite(v["doubleValue"]), `${where}.doubleValue: a number`);
    return v["doubleValue"] as number;
  }
  assert.equal(typeof v["boolValue"], "boolean", `${where}.boolValue`);
  return v["boolValue"] as boolean;
}

/** A KeyValue list, checked, as a plain map (keys must be unique). */
export function checkAttributes(list: unknown, where: string): Record<string, string | number | boolean> {
  assert.ok(Array.isArray(list), `${where}: an array`);
  const out: Record<string, string | number | boolean> = {};
  (list as unknown[]).forEach((kv, i) => {
    const o = exactKeys(kv, ["key", "value"], ["key", "value"], `${where}[${i}]`);
    assert.equal(typeof o["key"], "string", `${where}[${i}].key`);
    const key = o["key"] as string;
    assert.ok(!(key in out), `${where}: duplicate key ${key}`);
    out[key] = checkAnyValue(o["value"], `${where}[${i}].value`);
  });
  return out;
}

/** Check an ExportTraceServiceRequest body with one resource and one scope; returns its parts. */
export function checkOtlpTraces(text: string): CheckedRequest {
  const body = exactKeys(JSON.parse(text), ["resourceSpans"], ["resourceSpans"], "body");
  const rs = body["resourceSpans"];
  assert.ok(Array.isArray(rs) && rs.length === 1, "resourceSpans: one entry");
  const entry = exactKeys(rs[0], ["resource", "scopeSpans", "schemaUrl"], ["resource", "scopeSpans"], "resourceSpans[0]");
  const resource = exactKeys(entry["resource"], ["attributes", "droppedAttributesCount"], ["attributes"], "resource");
  const resourceAttrs = checkAttributes(resource["attributes"], "resource.attributes");
  const ss = entry["scopeSpans"];
  assert.ok(Array.isArray(ss) && ss.length === 1, "scopeSpans: one entry");
  const scopeSpans = exactKeys(ss[0], ["scope", "spans", "schemaUrl"], ["scope", "spans"], "scopeSpans[0]");
  const scope = exactKeys(scopeSpans["scope"], ["name", "version", "attributes"], ["name", "version"], "scope");
  assert.equal(typeof scope["name"], "string");
  assert.equal(typeof scope["version"], "string");
  assert.ok(Array.isArray(scopeSpans["spans"]), "spans: an array");
  const spans = (scopeSpans["spans"] as unknown[]).map((raw, i) => {
    const w = `spans[${i}]`;
    const s = exactKeys(
      raw,
      ["traceId", "spanId", "parentSpanId", "traceState", "flags", "name", "kind", "startTimeUnixNano", "endTimeUnixNano", "attributes", "events", "links", "status", "droppedAttributesCount"],
      ["traceId", "spanId", "name", "kind", "startTimeUnixNano", "endTimeUnixNano", "attributes", "status"],
      w,
    );
    assert.match(String(s["traceId"]), HEX32, `${w}.traceId: 32 lowercase hex`);
    assert.notEqual(s["traceId"], "0".repeat(32));
    assert.match(String(s["spanId"]), HEX16, `${w}.spanId: 16 lowercase hex`);
    if ("parentSpanId" in s) assert.match(String(s["parentSpanId"]), HEX16, `${w}.parentSpanId`);
    if ("flags" in s) assert.ok(Number.isInteger(s["flags"]) && (s["flags"] as number) >= 0, `${w}.flags: a fixed32`);
    assert.equal(typeof s["name"], "string");
    assert.ok([1, 2, 3, 4, 5].includes(s["kind"] as number), `${w}.kind: a SpanKind integer`);
    for (const t of ["startTimeUnixNano", "endTimeUnixNano"]) assert.ok(typeof s[t] === "string" && UINT64.test(s[t]), `${w}.${t}: a decimal string`);
    assert.ok(BigInt(s["endTimeUnixNano"] as string) >= BigInt(s["startTimeUnixNano"] as string), `${w}: ends after it starts`);
    checkAttributes(s["attributes"], `${w}.attributes`);
    const status = exactKeys(s["status"], ["code", "message"], ["code"], `${w}.status`);
    assert.ok(status["code"] === 1 || status["code"] === 2, `${w}.status.code: 1 or 2`);
    return s as unknown as CheckedSpan;
  });
  return { resource: resourceAttrs, scope: scope as { name: string; version: string }, spans };
}

/** A span's attributes as a plain map. */
export function attrsOf(span: CheckedSpan): Record<string, string | number | boolean> {
  return checkAttributes(span.attributes, span.name);
}

/** The raw AnyValue of one attribute (to check int vs string encoding). */
export function rawAttr(span: CheckedSpan, key: string): Record<string, unknown> | undefined {
  return span.attributes.find((a) => a.key === key)?.value;
}
