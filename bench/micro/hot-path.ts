/**
 * Micro-benchmarks of keel's request hot path and of JSON serialization, timed with
 * node:perf_hooks. Run by `npm run bench` (bundled, pinned to CPU 0), or alone:
 *   node --import tsx bench/micro/hot-path.ts [--quick] [--json]
 *
 * Groups (each case runs in rounds, cases interleaved so drift hits all; median ns/op):
 *  - handler: `app.handler(req, res)` with stub request/response objects (no socket) against a
 *    bare function that does the same job by hand: keel's own cost per request.
 *  - inject:  `app.inject(...)` (the whole pipeline, as tests use it) against a bare async function.
 *  - json:    JSON.stringify of typical replies, and keel's jsonReply() around the same values.
 *  - contract: the same routes with declared response schemas (their compiled serializers write
 *    the body) against the routes without (JSON.stringify): GET /hello, GET /users/42, the 64 KB
 *    list, and POST /users through inject.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { App, route, silentLogger } from "../../lib/index.js";
import { jsonReply } from "../../lib/core/reply.js";
import { benchErrorBody } from "../servers/common.js";
import { scenarioRoutes } from "../servers/keel-routes.js";
import { benchExtraRoutes, EXTRA_ROUTE_BODY, HELLO_BODY, INVALID_USER, makeBigPayload, VALID_USER } from "../servers/route-table.js";

export interface MicroCase {
  readonly group: string;
  readonly name: string;
  /** What this case is compared with (a case name in the same group), if anything. */
  readonly baseline?: string;
  /** Runs `n` operations; resolves when all are done. */
  readonly run: (n: number) => void | Promise<void>;
  /** Throws when the last operation did not answer as the case intends (a bench that measures a 400 is wrong). */
  readonly check?: () => void;
}

export interface MicroResult {
  group: string;
  name: string;
  baseline: string | null;
  nsPerOp: number;
  opsPerSec: number;
  /** nsPerOp of the baseline ÷ this (below 1: slower than the baseline). */
  ratioToBaseline: number | null;
  rounds: number[];
}

// --- stubs for app.handler ----------------------------------------------------------------------

interface StubResponse {
  headersSent: boolean;
  statusCode: number;
  writeHead(status: number, headers: unknown): StubResponse;
  end(body?: unknown): void;
}

/** A response stub that counts `end` calls and wakes a waiter when the batch is done. */
class EndCounter {
  ended = 0;
  private target = 0;
  private wake: (() => void) | null = null;
  readonly res: StubResponse;

  /** Throws unless the last answer had `status`. */
  expect(status: number, what: string): () => void {
    return () => {
      if (this.res.statusCode !== status) throw new Error(`micro bench: ${what} answered ${this.res.statusCode}, expected ${status}`);
    };
  }

  constructor() {
    const self = this;
    this.res = {
      headersSent: false,
      statusCode: 200,
      writeHead(status) {
        this.statusCode = status;
        return this;
      },
      end() {
        self.ended++;
        if (self.ended === self.target && self.wake !== null) {
          const w = self.wake;
          self.wake = null;
          w();
        }
      },
    };
  }

  /** Resolves once `end` has been called `target` times in total. */
  until(target: number): Promise<void> | undefined {
    this.target = target;
    if (this.ended >= target) return undefined;
    return new Promise((resolve) => (this.wake = resolve));
  }
}

/** What app.handler reads of a request: an HTTP/1.1 request with a Host, as a client sends it. */
function stubRequest(method: string, url: string): IncomingMessage {
  return {
    method,
    url,
    headers: { host: "localhost" },
    httpVersion: "1.1",
    httpVersionMajor: 1,
    httpVersionMinor: 1,
    socket: { remoteAddress: "127.0.0.1" },
  } as unknown as IncomingMessage;
}

// --- the cases ----------------------------------------------------------------------------------

function benchApp(): App {
  const app = new App({ logger: silentLogger }).routes(scenarioRoutes(false));
  for (const r of benchExtraRoutes()) {
    const handler = () => EXTRA_ROUTE_BODY;
    app.route(r.method === "GET" ? route.get(r.path, [], handler) : r.method === "POST" ? route.post(r.path, [], handler) : route.delete(r.path, [], handler));
  }
  return app.compile();
}

function handlerCases(app: App): MicroCase[] {
  const counter = new EndCounter();
  const res = counter.res as unknown as ServerResponse;
  const handle = app.handler;
  const viaApp = (req: IncomingMessage) => (n: number) => {
    const target = counter.ended + n;
    for (let i = 0; i < n; i++) handle(req, res);
    return counter.until(target);
  };
  const bare = (n: number) => {
    const target = counter.ended + n;
    for (let i = 0; i < n; i++) {
      const body = JSON.stringify(HELLO_BODY);
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    }
    return counter.until(target);
  };
  return [
    { group: "handler", name: "bare function: GET /hello", run: bare },
    { group: "handler", name: "keel app.handler: GET /hello", baseline: "bare function: GET /hello", run: viaApp(stubRequest("GET", "/hello")), check: counter.expect(200, "GET /hello") },
    { group: "handler", name: "keel app.handler: GET /users/42", baseline: "bare function: GET /hello", run: viaApp(stubRequest("GET", "/users/42")), check: counter.expect(200, "GET /users/42") },
    {
      group: "handler",
      name: "keel app.handler: GET /missing (404)",
      baseline: "bare function: GET /hello",
      run: viaApp(stubRequest("GET", "/does/not/exist")),
      check: counter.expect(404, "GET /does/not/exist"),
    },
  ];
}

async function bareInject(): Promise<{ status: number; body: string }> {
  return { status: 200, body: JSON.stringify(HELLO_BODY) };
}

function injectCases(app: App): MicroCase[] {
  const batch = (fn: () => Promise<unknown>) => async (n: number) => {
    for (let i = 0; i < n; i++) await fn();
  };
  const validBody = JSON.stringify(VALID_USER);
  const invalidBody = JSON.stringify(INVALID_USER);
  const jsonHeaders = { "content-type": "application/json" };
  return [
    { group: "inject", name: "bare async function", run: batch(bareInject) },
    { group: "inject", name: "app.inject GET /hello", baseline: "bare async function", run: batch(() => app.inject({ url: "/hello" })) },
    { group: "inject", name: "app.inject GET /users/42", baseline: "bare async function", run: batch(() => app.inject({ url: "/users/42" })) },
    {
      group: "inject",
      name: "app.inject POST /users (valid)",
      baseline: "bare async function",
      run: batch(() => app.inject({ method: "POST", url: "/users", headers: jsonHeaders, body: validBody })),
    },
    {
      group: "inject",
      name: "app.inject POST /users (422)",
      baseline: "bare async function",
      run: batch(() => app.inject({ method: "POST", url: "/users", headers: jsonHeaders, body: invalidBody })),
    },
  ];
}

/** Keeps results alive so the optimiser cannot drop the work. */
let sink = 0;

function jsonCases(): MicroCase[] {
  const big = makeBigPayload();
  const user = { id: 42, name: "user" };
  const createdBody = { id: 1, email: VALID_USER.email };
  const stringify = (value: unknown) => (n: number) => {
    for (let i = 0; i < n; i++) sink += JSON.stringify(value).length;
  };
  const viaReply = (value: unknown) => (n: number) => {
    // The reply writes its JSON text when the body is first read, as the writer does.
    for (let i = 0; i < n; i++) sink += (jsonReply(value).body as string).length;
  };
  return [
    { group: "json", name: "JSON.stringify hello", run: stringify(HELLO_BODY) },
    { group: "json", name: "jsonReply(hello)", baseline: "JSON.stringify hello", run: viaReply(HELLO_BODY) },
    { group: "json", name: "JSON.stringify user", run: stringify(user) },
    { group: "json", name: "JSON.stringify created user", run: stringify(createdBody) },
    {
      group: "json",
      name: "uniform 422 error body",
      run: (n) => {
        const fields = [
          { field: "email", code: "email", message: "must be a valid email address" },
          { field: "password", code: "length", message: "must be at least 8 characters" },
        ];
        for (let i = 0; i < n; i++) sink += benchErrorBody("validation_error", "Request validation failed", fields).length;
      },
    },
    { group: "json", name: "JSON.stringify 64 KB list", run: stringify(big) },
    { group: "json", name: "jsonReply(64 KB list)", baseline: "JSON.stringify 64 KB list", run: viaReply(big) },
  ];
}

/** The contract group's app: the same handlers, with (`schemas`) or without declared responses. */
function contractApp(schemas: boolean): App {
  return new App({ logger: silentLogger }).routes(scenarioRoutes(schemas)).compile();
}

function contractCases(): MicroCase[] {
  const plain = contractApp(false);
  const typed = contractApp(true);
  const counter = new EndCounter();
  const res = counter.res as unknown as ServerResponse;
  const viaApp = (app: App, req: IncomingMessage) => (n: number) => {
    const target = counter.ended + n;
    for (let i = 0; i < n; i++) app.handler(req, res);
    return counter.until(target);
  };
  const validBody = JSON.stringify(VALID_USER);
  const post = (app: App) => async (n: number) => {
    for (let i = 0; i < n; i++) await app.inject({ method: "POST", url: "/users", headers: { "content-type": "application/json" }, body: validBody });
  };
  const cases: MicroCase[] = [];
  for (const [what, url] of [["GET /hello", "/hello"], ["GET /users/42", "/users/42"], ["GET /big (64 KB list)", "/big"]] as const) {
    const check = counter.expect(200, what);
    cases.push({ group: "contract", name: `JSON.stringify: ${what}`, run: viaApp(plain, stubRequest("GET", url)), check });
    cases.push({ group: "contract", name: `response schema: ${what}`, baseline: `JSON.stringify: ${what}`, run: viaApp(typed, stubRequest("GET", url)), check });
  }
  cases.push({ group: "contract", name: "JSON.stringify: inject POST /users", run: post(plain) });
  cases.push({ group: "contract", name: "response schema: inject POST /users", baseline: "JSON.stringify: inject POST /users", run: post(typed) });
  return cases;
}

// --- timing -------------------------------------------------------------------------------------

async function timeOnce(c: MicroCase, n: number): Promise<number> {
  const start = performance.now();
  const pending = c.run(n);
  if (pending !== undefined) await pending;
  return ((performance.now() - start) * 1e6) / n;
}

/** Operations per batch so one batch takes about `targetMs`. */
async function calibrate(c: MicroCase, targetMs: number): Promise<number> {
  let n = 16;
  for (;;) {
    const ns = await timeOnce(c, n);
    if (ns * n >= 20e6 || n >= 1 << 24) return Math.max(1, Math.round((targetMs * 1e6) / ns));
    n *= 4;
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function runMicro(options: { quick: boolean }): Promise<MicroResult[]> {
  const roundMs = options.quick ? 40 : 150;
  const rounds = options.quick ? 3 : 7;
  const app = benchApp();
  const only = process.env["KEEL_MICRO_GROUP"];
  const cases = [...handlerCases(app), ...injectCases(app), ...jsonCases(), ...contractCases()].filter((c) => only === undefined || c.group === only);
  const sizes = new Map<MicroCase, number>();
  for (const c of cases) {
    await c.run(2000); // warm up to the optimised tier
    c.check?.();
    sizes.set(c, await calibrate(c, roundMs));
  }
  const samples = new Map<MicroCase, number[]>(cases.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) samples.get(c)!.push(await timeOnce(c, sizes.get(c)!));
  }
  const byName = new Map<string, number>();
  const results: MicroResult[] = cases.map((c) => {
    const ns = median(samples.get(c)!);
    byName.set(`${c.group}/${c.name}`, ns);
    return { group: c.group, name: c.name, baseline: c.baseline ?? null, nsPerOp: ns, opsPerSec: 1e9 / ns, ratioToBaseline: null, rounds: samples.get(c)! };
  });
  for (const r of results) {
    if (r.baseline === null) continue;
    const base = byName.get(`${r.group}/${r.baseline}`);
    if (base !== undefined) r.ratioToBaseline = base / r.nsPerOp;
  }
  if (sink === 42) process.stderr.write("");
  return results;
}

export function microTable(results: readonly MicroResult[]): string {
  const lines = ["| group | case | ns/op | ops/s | × baseline |", "|---|---|---:|---:|---:|"];
  for (const r of results) {
    const ratio = r.ratioToBaseline === null ? "" : `${r.ratioToBaseline.toFixed(2)}× (${r.baseline})`;
    lines.push(`| ${r.group} | ${r.name} | ${r.nsPerOp.toFixed(0)} | ${Math.round(r.opsPerSec).toLocaleString("en-US")} | ${ratio} |`);
  }
  return lines.join("\n");
}

const invokedDirectly = process.argv[1] !== undefined && /hot-path\.(?:ts|mjs)$/.test(process.argv[1]);
if (invokedDirectly) {
  const results = await runMicro({ quick: process.argv.includes("--quick") });
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(results) + "\n");
  else process.stdout.write(microTable(results) + "\n");
}
