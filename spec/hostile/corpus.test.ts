// The hostile corpus: every case of every class (spec/hostile/cases/) against the real sample
// service over raw sockets, in development and in production, then the kitchen app for the
// parsers the sample does not expose. Each answer must be the case's expectation (by default the
// uniform 4xx), never a 5xx or a hang, never two answers, no stack or path in a body, no
// prototype pollution; and a canary request on a new connection is served after each case.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, form, query, route, silentLogger, t, type ListeningServer } from "../../lib/index.js";
import { createSampleApp, DEV_JWT_SECRET } from "../../lib/sample/index.js";
import { toon } from "../../lib/toon/index.js";
import { send } from "../support/http.js";
import { bodies } from "./cases/bodies.js";
import { chunking } from "./cases/chunking.js";
import { headers } from "./cases/headers.js";
import { kitchen } from "./cases/kitchen.js";
import { paths } from "./cases/paths.js";
import { security } from "./cases/security.js";
import { smuggling } from "./cases/smuggling.js";
import { exchange, judge, type HostileClass } from "./harness.js";

const SAMPLE_CLASSES: HostileClass[] = [smuggling, chunking, headers, paths, bodies, security];
/** Short limits so the cases that must time out (a body that never ends) answer in seconds. */
const LIMITS = { headersTimeout: 1_000, requestTimeout: 2_000, timeoutCheckInterval: 200 } as const;

function kitchenApp(): App {
  return new App({ logger: silentLogger }).routes(
    route.post("/toon", [toon(t.object({ name: t.string() }))], (b) => ({ name: b.name })),
    route.post("/form", [form(t.object({ name: t.string() }))], (b) => ({ name: b.name })),
    route.get("/q", [query(t.object({ name: t.optional(t.string()) }))], (q) => ({ name: q.name ?? null })),
    route.get("/hello", [], () => "hello"),
  );
}

/** Run every case of `cls`; collect failures so one run names them all. */
async function runClass(server: ListeningServer, cls: HostileClass, label: string): Promise<{ tried: number; failures: string[] }> {
  const failures: string[] = [];
  const settleMs = cls.name === "smuggling" ? 200 : 20;
  for (const c of cls.cases) {
    const name = `${label} ${cls.name}: ${c.name}`;
    try {
      judge(c, await exchange(server.port, c.raw, 5_000, settleMs), name);
      const canary = await send(server.url + "/hello");
      assert.equal(canary.status, 200, `${name}: the canary after it got ${canary.status}`);
    } catch (err) {
      const message = (err as Error).message.split("\n")[0]!;
      failures.push(message.startsWith(name) ? message : `${name}: ${message}`);
    }
  }
  return { tried: cls.cases.length, failures };
}

const tally = { tried: 0, failed: 0 };

for (const env of ["development", "production"] as const) {
  describe(`hostile corpus against the sample (${env})`, () => {
    let server: ListeningServer;
    before(async () => {
      const app = createSampleApp({ env, logger: silentLogger, jwtSecret: DEV_JWT_SECRET, corsOrigins: ["https://app.example"] });
      server = await app.listen({ port: 0, ...LIMITS });
    });
    after(() => server.close());

    for (const cls of SAMPLE_CLASSES) {
      it(`${cls.name}: ${cls.cases.length} cases`, async () => {
        const { tried, failures } = await runClass(server, cls, env);
        tally.tried += tried;
        tally.failed += failures.length;
        assert.deepEqual(failures, [], `${failures.length} of ${tried} failed`);
      });
    }
  });
}

describe("hostile corpus against the kitchen app (TOON, forms, queries)", () => {
  let server: ListeningServer;
  before(async () => {
    server = await kitchenApp().listen({ port: 0, ...LIMITS });
  });
  after(() => server.close());

  it(`kitchen: ${kitchen.cases.length} cases`, async () => {
    const { tried, failures } = await runClass(server, kitchen, "kitchen");
    tally.tried += tried;
    tally.failed += failures.length;
    assert.deepEqual(failures, [], `${failures.length} of ${tried} failed`);
  });
});

describe("the corpus itself", () => {
  it("holds at least 300 distinct cases", () => {
    const all = [...SAMPLE_CLASSES, kitchen].flatMap((c) => c.cases.map((x) => `${c.name}: ${x.name}`));
    assert.ok(all.length >= 300, `${all.length} cases`);
    assert.equal(new Set(all).size, all.length, "case names are unique");
    console.log(`hostile corpus: ${all.length} distinct cases; ${tally.tried} exchanges judged this run, ${tally.failed} failed`);
  });
});
