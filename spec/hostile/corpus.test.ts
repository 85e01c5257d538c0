// The hostile corpus (issue 14): every case of every class (one folder per class under
// spec/hostile/) over raw sockets against the real sample service, in development and in
// production, with a small kitchen app for the parsers the sample does not expose (TOON, plain
// forms, query objects). Each answer must be the case's expectation (by default the uniform 4xx),
// never a 5xx or a hang, never two answers, no stack or path in a body, no prototype pollution;
// a follow-up request, when the case has one, is judged too; and a canary request on a new
// connection is served after each case. Cases run side by side (CASES_IN_FLIGHT), each from a
// loopback address of its own.
// HOSTILE_REPORT=<file> writes the failures, one a line, to that file as well.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { App, form, query, route, silentLogger, t, type ListeningServer } from "../../lib/index.js";
import { createSampleApp, DEV_JWT_SECRET } from "../../lib/sample/index.js";
import { toon } from "../../lib/toon/index.js";
import { bodies } from "./bodies/cases.js";
import { cache } from "./cache/cases.js";
import { chunking } from "./chunking/cases.js";
import { contentType } from "./content-type/cases.js";
import { corsClass } from "./cors/cases.js";
import { csrfClass } from "./csrf/cases.js";
import { exchange, judge, showAnswer, type HostileCase, type HostileClass } from "./harness.js";
import { headers } from "./headers/cases.js";
import { jwtClass } from "./jwt/cases.js";
import { nesting } from "./nesting/cases.js";
import { numbersClass } from "./numbers/cases.js";
import { paths } from "./paths/cases.js";
import { prototype } from "./prototype/cases.js";
import { redirects } from "./redirects/cases.js";
import { smuggling } from "./smuggling/cases.js";
import { utf8 } from "./utf8/cases.js";

const CLASSES: HostileClass[] = [smuggling, chunking, headers, paths, contentType, prototype, numbersClass, utf8, nesting, bodies, jwtClass, cache, redirects, csrfClass, corsClass];
/** Short limits so the cases that must time out (a body that never ends) answer in seconds. */
const LIMITS = { headersTimeout: 1_000, requestTimeout: 2_000, timeoutCheckInterval: 200 } as const;
const CANARY = "GET /hello HTTP/1.1\r\nHost: keel.test\r\nConnection: close\r\n\r\n";

function kitchenApp(env: string): App {
  return new App({ logger: silentLogger, env }).routes(
    route.post("/toon", [toon(t.object({ name: t.string() }))], (b) => ({ name: b.name })),
    route.post("/form", [form(t.object({ name: t.string() }))], (b) => ({ name: b.name })),
    route.get("/q", [query(t.object({ name: t.optional(t.string()) }))], (q) => ({ name: q.name ?? null })),
    route.get("/hello", [], () => "hello"),
  );
}

interface Servers {
  sample: ListeningServer;
  kitchen: ListeningServer;
}

async function runCase(servers: Servers, c: HostileCase, name: string, settleMs: number): Promise<void> {
  const server = servers[c.app ?? "sample"];
  const first = await exchange(server.port, c.raw, 5_000, settleMs);
  judge(c, first, name);
  if (c.followUp !== undefined) {
    const second = await exchange(server.port, c.followUp.raw, 5_000, 20);
    assert.equal(second.answers.length, 1, `${name}: the follow-up got ${second.answers.length} answers`);
    try {
      c.followUp.check(second.answers[0]!, first.answers[0]!);
    } catch (err) {
      assert.fail(`${name}: follow-up [got ${showAnswer(second.answers[0]!)}]: ${(err as Error).message.split("\n")[0]}`);
    }
  }
  const canary = (await exchange(server.port, CANARY, 5_000, 0)).answers;
  assert.equal(canary[0]?.status, 200, `${name}: the canary after it got ${canary[0] === undefined ? "no answer" : showAnswer(canary[0])}`);
}

/**
 * How many cases are in flight at once in one environment. The corpus is mostly waiting (the
 * settle window after an answer, the request timeout of a body that never ends), so cases run
 * side by side: about 40 s an environment one at a time, a few seconds this way. Each exchange
 * comes from a loopback address of its own, so no case meets another's per-client limits.
 */
const CASES_IN_FLIGHT = 12;

/** A counting semaphore: at most `size` holders at once, the rest wait in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}

/** Run every case of `cls`; collect failures, in case order, so one run names them all. */
async function runClass(servers: Servers, cls: HostileClass, label: string, slots: Slots): Promise<string[]> {
  const settleMs = cls.name === "smuggling" ? 200 : 20;
  const outcomes = await Promise.all(
    cls.cases.map((c) => {
      if (c.only !== undefined && c.only !== label) return null;
      const name = `${label} ${cls.name}: ${c.name}`;
      return slots.run(async () => {
        try {
          await runCase(servers, c, name, settleMs);
          return null;
        } catch (err) {
          const message = (err as Error).message.split("\n")[0]!;
          return message.startsWith(name) ? message : `${name}: ${message}`;
        }
      });
    }),
  );
  return outcomes.filter((o): o is string => o !== null);
}

const allFailures: string[] = [];

// Both environments, and every class within one, run side by side (see CASES_IN_FLIGHT).
describe("hostile corpus", { concurrency: true }, () => {
  for (const env of ["development", "production"] as const) {
    describe(`hostile corpus (${env})`, { concurrency: true }, () => {
      let servers: Servers;
      const slots = new Slots(CASES_IN_FLIGHT);
      before(async () => {
        const sample = createSampleApp({ env, logger: silentLogger, jwtSecret: DEV_JWT_SECRET, corsOrigins: ["https://app.example"] });
        servers = { sample: await sample.listen({ port: 0, ...LIMITS }), kitchen: await kitchenApp(env).listen({ port: 0, ...LIMITS }) };
      });
      after(async () => {
        await Promise.all([servers.sample.close(), servers.kitchen.close()]);
      });

      for (const cls of CLASSES) {
        it(`${cls.name}: ${cls.cases.length} cases`, async () => {
          const failures = await runClass(servers, cls, env, slots);
          allFailures.push(...failures);
          assert.deepEqual(failures, [], `${failures.length} of ${cls.cases.length} failed`);
        });
      }
    });
  }
  after(() => {
    if (process.env["HOSTILE_REPORT"] !== undefined) writeFileSync(process.env["HOSTILE_REPORT"], allFailures.join("\n") + "\n");
  });
});

describe("the corpus itself", () => {
  it("holds at least 300 distinct cases, one folder per class", () => {
    const all = CLASSES.flatMap((c) => c.cases.map((x) => `${c.name}: ${x.name}`));
    assert.ok(all.length >= 300, `${all.length} cases`);
    const dupes = all.filter((n, i) => all.indexOf(n) !== i);
    assert.deepEqual(dupes, [], "case names are unique");
    assert.equal(new Set(CLASSES.map((c) => c.name)).size, CLASSES.length, "class names are unique");
  });
});
