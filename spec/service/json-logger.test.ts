// The buffered JSON logger: pino-compatible fields, levels, redaction of secrets at any depth.
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { createBufferedLogger, isJsonLogger, parseLogLevel } from "../../lib/service/index.js";
import { REDACTED, redactHeaders } from "../../lib/service/index.js";
import { App, createJsonLogger, route, silentLogger } from "../../lib/index.js";
import { spawnSync } from "node:child_process";

function collector(): Writable & { text(): string } {
  let buf = "";
  const w = new Writable({
    write(chunk: Buffer, _e, cb) {
      buf += chunk.toString("utf8");
      cb();
    },
  });
  return Object.assign(w, { text: () => buf });
}

async function linesOf(fn: (logger: ReturnType<typeof createBufferedLogger>) => void, options: Parameters<typeof createBufferedLogger>[0] = {}): Promise<Array<Record<string, unknown>>> {
  const out = collector();
  const logger = createBufferedLogger({ ...options, destination: out });
  fn(logger);
  await logger.flush();
  return out
    .text()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("createBufferedLogger", () => {
  it("writes pino-style lines: numeric level, epoch-ms time, pid, hostname, base fields, msg, fields", async () => {
    const before = Date.now();
    const [rec] = await linesOf((l) => l.log(30, "hello", { a: 1, nested: { b: "c" } }), { base: { service: "svc", version: "1.2.3" } });
    assert.ok(rec);
    assert.equal(rec["level"], 30);
    assert.ok(typeof rec["time"] === "number" && rec["time"] >= before && rec["time"] <= Date.now());
    assert.equal(rec["pid"], process.pid);
    assert.equal(rec["hostname"], hostname());
    assert.equal(rec["service"], "svc");
    assert.equal(rec["version"], "1.2.3");
    assert.equal(rec["msg"], "hello");
    assert.equal(rec["a"], 1);
    assert.deepEqual(rec["nested"], { b: "c" });
  });

  it("drops records below the level", async () => {
    const recs = await linesOf(
      (l) => {
        l.log(20, "debug");
        l.log(30, "info");
        l.log(50, "error");
      },
      { level: "info" },
    );
    assert.deepEqual(recs.map((r) => r["msg"]), ["info", "error"]);
    assert.equal((await linesOf((l) => l.log(60, "x"), { level: "silent" })).length, 0);
  });

  it("redacts secret header values at any depth, case-insensitively", async () => {
    const secrets = ["Bearer s3cret-token", "sid=abcdef", "sess=zzz; HttpOnly", "key-123456", "Basic cHJveHk="];
    const recs = await linesOf((l) =>
      l.log(30, "with headers", {
        req_headers: { Authorization: secrets[0], cookie: secrets[1], host: "example.com" },
        res: { headers: { "set-cookie": [secrets[2]] } },
        "x-api-key": secrets[3],
        deep: [{ "Proxy-Authorization": secrets[4] }],
      }),
    );
    const raw = JSON.stringify(recs);
    for (const s of secrets) assert.ok(!raw.includes(s), `${s} must not be logged`);
    const rec = recs[0]!;
    assert.deepEqual(rec["req_headers"], { Authorization: REDACTED, cookie: REDACTED, host: "example.com" });
    assert.deepEqual(rec["res"], { headers: { "set-cookie": REDACTED } });
    assert.equal(rec["x-api-key"], REDACTED);
  });

  it("serializes errors and bigints, and survives circular fields", async () => {
    const circular: Record<string, unknown> = {};
    circular["self"] = circular;
    const recs = await linesOf((l) => {
      l.log(50, "failed", { err: new TypeError("bad thing"), big: 10n });
      l.log(50, "circular", { circular });
    });
    const err = recs[0]!["err"] as { type: string; message: string; stack: string };
    assert.equal(err.type, "TypeError");
    assert.equal(err.message, "bad thing");
    assert.match(err.stack, /TypeError: bad thing/);
    assert.equal(recs[0]!["big"], "10");
    assert.equal(recs[1]!["msg"], "circular");
    assert.equal(recs[1]!["log_error"], "fields were not serializable");
  });

  it("escapes messages and refuses reserved base fields", async () => {
    const [rec] = await linesOf((l) => l.log(30, 'quote " and \n newline'));
    assert.equal(rec!["msg"], 'quote " and \n newline');
    assert.throws(() => createBufferedLogger({ base: { level: 1 } }), /reserved/);
  });

  it("is recognised as a JsonLogger (the access log's fast path); core loggers are not", () => {
    assert.equal(isJsonLogger(createBufferedLogger({ destination: collector() })), true);
    assert.equal(isJsonLogger(silentLogger), false);
  });
});

describe("createJsonLogger (the kernel's logger) and createBufferedLogger are one logger", () => {
  const lines = (text: string): Array<Record<string, unknown>> =>
    text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const withoutTime = (line: string): string => line.replace(/"time":\d+/g, '"time":0');

  it("both build the same line, byte for byte, for the same record", async () => {
    const out = collector();
    const buffered = createBufferedLogger({ destination: out, base: { service: "svc" }, processFields: false, redact: [] });
    let kernelText = "";
    const kernel = createJsonLogger({ base: { service: "svc" }, write: (l) => void (kernelText += l) });
    const err = new RangeError("r");
    const record = (l: { log(level: number, msg: string, fields?: Record<string, unknown>): void }): void => {
      l.log(40, "warned", { a: 1, err, big: 2n, nested: { list: [1, "x"] } });
      l.log(30, "no fields");
    };
    record(buffered);
    record(kernel);
    await buffered.flush();
    assert.equal(withoutTime(kernelText), withoutTime(out.text()));
    assert.match(kernelText, /^\{"level":40,"time":\d+,"service":"svc","msg":"warned","a":1,"err":\{"type":"RangeError","message":"r","stack":/);
  });

  it("the kernel's logger: pino fields without pid/hostname, level threshold, errors serialized, nothing redacted unless asked", () => {
    let text = "";
    const logger = createJsonLogger({ level: "warn", write: (l) => void (text += l) });
    logger.log(30, "dropped");
    logger.log(50, "failed", { authorization: "Bearer t", err: new Error("x") });
    const [rec, ...rest] = lines(text);
    assert.equal(rest.length, 0);
    assert.deepEqual(Object.keys(rec!), ["level", "time", "msg", "authorization", "err"]);
    assert.equal(rec!["authorization"], "Bearer t");
    assert.equal((rec!["err"] as { message: string }).message, "x");

    text = "";
    const redacting = createJsonLogger({ redact: ["Authorization"], write: (l) => void (text += l) });
    redacting.log(30, "r", { headers: { authorization: "Bearer t" } });
    assert.deepEqual(lines(text)[0]!["headers"], { authorization: REDACTED });
  });

  it("is a JsonLogger (the access log's fast path) whose flush resolves at once; write and sink exclude each other", async () => {
    const logger = createJsonLogger({ write: () => undefined });
    assert.ok(isJsonLogger(logger));
    await logger.flush();
    logger.flushSync();
    assert.throws(() => createJsonLogger({ write: () => undefined, sink: { write: () => undefined } }), TypeError);
    assert.throws(() => createJsonLogger({ level: "loud" as never }), RangeError);
  });
});

describe("parseLogLevel", () => {
  it("accepts names, silent and numbers; rejects the rest", () => {
    assert.equal(parseLogLevel("trace"), 10);
    assert.equal(parseLogLevel("WARN"), 40);
    assert.equal(parseLogLevel("silent"), Infinity);
    assert.equal(parseLogLevel("35"), 35);
    assert.equal(parseLogLevel(50), 50);
    assert.throws(() => parseLogLevel("verbose"), RangeError);
    assert.throws(() => parseLogLevel("__proto__"), RangeError);
  });
});

describe("redactHeaders", () => {
  it("copies headers with secrets redacted, optionally keeping only some names", () => {
    const h = { authorization: "Bearer t", "user-agent": "ua", cookie: "a=b", accept: ["a", "b"] };
    assert.deepEqual({ ...redactHeaders(h) }, { authorization: REDACTED, "user-agent": "ua", cookie: REDACTED, accept: ["a", "b"] });
    assert.deepEqual({ ...redactHeaders(h, undefined, new Set(["user-agent", "authorization"])) }, { authorization: REDACTED, "user-agent": "ua" });
    assert.equal(Object.getPrototypeOf(redactHeaders(h)), null);
  });
});

describe("the default destination and the err object", () => {
  it("a logger made without a destination writes to stdout, not stderr", async () => {
    const script = `import { createJsonLogger } from ${JSON.stringify(new URL("../../lib/index.ts", import.meta.url).href)}; createJsonLogger().log(30, "to stdout");`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /"msg":"to stdout"/);
    assert.doesNotMatch(r.stderr, /to stdout/);
  });

  it("a 5xx is logged with pino's err object (type, message, stack) of its cause", async () => {
    const lines: string[] = [];
    const app = new App({ logger: createJsonLogger({ write: (l) => void lines.push(l) }) }).routes(
      route.get("/boom", [], () => {
        throw new TypeError("kaput");
      }),
    );
    assert.equal((await app.inject({ url: "/boom" })).status, 500);
    const rec = JSON.parse(lines.find((l) => l.includes('"request failed"'))!) as { err: { type: string; message: string; stack: string } };
    assert.equal(rec.err.type, "TypeError");
    assert.equal(rec.err.message, "kaput");
    assert.match(rec.err.stack, /TypeError: kaput\n\s+at /);
  });
});
