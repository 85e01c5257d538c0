// Stream bodies that ask to be ended when the app drains (keel/plugin's `endOnDrain`), over real
// sockets: the writer recognises the symbol on any body a feature makes (a Readable or an async
// iterable), the drain calls it once and the client sees a clean end after what was sent, without
// the drain waiting for its deadline; a body that started after the drain began is ended at once;
// a method that throws is logged and does not stop the others; and a body without the symbol is
// not tracked: the drain leaves it open until it ends by itself.
import assert from "node:assert/strict";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { App, route, silentLogger, stream, type ListeningServer } from "../../lib/index.js";
import { endOnDrain, type EndsOnDrain } from "../../lib/plugin.js";
import { captureLogger } from "../support/capture-logger.js";

const BOUND_MS = 5000;
// Far beyond BOUND_MS: a drain that waited for its deadline would fail the bounded waits.
const SHUTDOWN_TIMEOUT_MS = 60_000;

/** Resolve with `p`, or fail once `ms` passed (a bound on waiting, not a timing assertion). */
function within<T>(p: Promise<T>, label: string, ms = BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting: ${label}`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A feature's own stream: a line at once, more when the test pushes, a last line when drained. */
class DrainedLines extends Readable implements EndsOnDrain {
  drained = 0;
  constructor() {
    super({ encoding: "utf8" });
    this.push("hello\n");
  }
  override _read(): void {}
  [endOnDrain](): void {
    this.drained++;
    this.push("bye\n");
    this.push(null);
  }
}

/** The same stream without the symbol: only `finish()` ends it. */
class PlainLines extends Readable {
  constructor() {
    super({ encoding: "utf8" });
    this.push("hello\n");
  }
  override _read(): void {}
  finish(): void {
    this.push(null);
  }
}

interface Client {
  res: IncomingMessage;
  text(): string;
  waitFor(part: string, label: string): Promise<void>;
  /** Resolves "end" on a clean end; rejects when the response is cut off. */
  ended: Promise<string>;
  ends: number;
}

function open(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let text = "";
      let wake: (() => void) | null = null;
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
        wake?.();
      });
      const client: Client = {
        res,
        text: () => text,
        ends: 0,
        ended: new Promise<string>((done, fail) => {
          res.on("end", () => {
            client.ends++;
            done("end");
          });
          res.on("aborted", () => fail(new Error("the response was cut off")));
          res.on("error", fail);
        }),
        waitFor(part, label) {
          return within(
            new Promise<void>((ok) => {
              const check = (): void => {
                if (text.includes(part)) ok();
              };
              wake = check;
              check();
            }),
            `${label} (received ${JSON.stringify(text)})`,
          );
        },
      };
      // A rejection the test does not await is reported as its failure, not as an unhandled one.
      client.ended.catch(() => {});
      resolve(client);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Wait (bounded) until the drain has stopped the listener: the long-lived bodies were told to end just before. */
async function listenerClosed(server: ListeningServer): Promise<void> {
  await within(
    (async () => {
      while (server.server.listening) await new Promise<void>((r) => setImmediate(r));
    })(),
    "the listener to close",
  );
}

describe("stream bodies carrying endOnDrain", () => {
  it("a Readable of a feature's own making is ended once, after what it sent, when the app drains; the drain does not wait for its deadline", async () => {
    const bodies: DrainedLines[] = [];
    const app = new App({ logger: silentLogger }).routes(
      route.get("/lines", [], () => {
        const body = new DrainedLines();
        bodies.push(body);
        return stream(body, "text/plain; charset=utf-8");
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: SHUTDOWN_TIMEOUT_MS });
    const client = await open(server.url + "/lines");
    await client.waitFor("hello\n", "the first line");
    assert.equal(bodies[0]!.drained, 0, "nothing ends it before the drain");
    const closing = server.close();
    assert.equal(await within(client.ended, "a clean end"), "end");
    assert.equal(client.text(), "hello\nbye\n");
    await within(closing, `the drain (its deadline is ${SHUTDOWN_TIMEOUT_MS} ms)`);
    assert.equal(bodies[0]!.drained, 1);
  });

  it("an async iterable body carrying the symbol is ended too", async () => {
    let calls = 0;
    const app = new App({ logger: silentLogger }).routes(
      route.get("/ticks", [], () => {
        const stop = signalled();
        const body = {
          async *[Symbol.asyncIterator](): AsyncGenerator<string> {
            yield "tick\n";
            await stop.promise;
            yield "last\n";
          },
          [endOnDrain](): void {
            calls++;
            stop.resolve();
          },
        };
        return stream(body, "text/plain; charset=utf-8");
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: SHUTDOWN_TIMEOUT_MS });
    const client = await open(server.url + "/ticks");
    await client.waitFor("tick\n", "the first tick");
    const closing = server.close();
    assert.equal(await within(client.ended, "a clean end"), "end");
    assert.equal(client.text(), "tick\nlast\n");
    await within(closing, "the drain");
    assert.equal(calls, 1);
  });

  it("a body that starts after the drain began is ended at once", async () => {
    const started = signalled();
    const release = signalled();
    let body: DrainedLines | undefined;
    const app = new App({ logger: silentLogger }).routes(
      route.get("/late", [], async () => {
        started.resolve();
        await release.promise;
        body = new DrainedLines();
        return stream(body, "text/plain; charset=utf-8");
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: SHUTDOWN_TIMEOUT_MS });
    const answered = open(server.url + "/late");
    await within(started.promise, "the handler to start");
    const closing = server.close();
    await listenerClosed(server);
    release.resolve();
    const client = await within(answered, "the answer");
    assert.equal(await within(client.ended, "a clean end"), "end");
    assert.equal(client.text(), "hello\nbye\n");
    assert.equal(body!.drained, 1);
    await within(closing, "the drain");
  });

  it("a method that throws is logged, and the drain still ends the other bodies", async () => {
    const logger = captureLogger(0);
    let n = 0;
    const app = new App({ logger }).routes(
      route.get("/lines", [], () => {
        const body = new DrainedLines();
        if (n++ === 0) {
          body[endOnDrain] = () => {
            throw new Error("cannot end");
          };
        }
        return stream(body, "text/plain; charset=utf-8");
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: 500 });
    const failing = await open(server.url + "/lines");
    await failing.waitFor("hello\n", "the first stream's line");
    const good = await open(server.url + "/lines");
    await good.waitFor("hello\n", "the second stream's line");
    const closing = server.close();
    assert.equal(await within(good.ended, "the second stream's clean end"), "end");
    assert.equal(good.text(), "hello\nbye\n");
    // The throwing body is left to the deadline (500 ms), which cuts its connection off.
    await assert.rejects(within(failing.ended, "the first stream cut off"));
    await within(closing, "the drain");
    const failed = logger.records.filter((r) => r.msg === "ending a stream on drain failed");
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.fields["message"], "cannot end");
  });
});

describe("stream bodies without endOnDrain", () => {
  it("are not tracked: the drain leaves the body open, and it still writes until it ends by itself", async () => {
    const bodies: PlainLines[] = [];
    const app = new App({ logger: silentLogger }).routes(
      route.get("/lines", [], () => {
        const body = new PlainLines();
        bodies.push(body);
        return stream(body, "text/plain; charset=utf-8");
      }),
    );
    const server = await app.listen({ port: 0, shutdownTimeout: SHUTDOWN_TIMEOUT_MS });
    const client = await open(server.url + "/lines");
    await client.waitFor("hello\n", "the first line");
    let drained = false;
    const closing = server.close().then(() => (drained = true));
    // The long-lived bodies are told to end just before the listener closes: past this point a
    // tracked body would have ended.
    await listenerClosed(server);
    bodies[0]!.push("still here\n");
    await client.waitFor("still here\n", "a line written after the drain began");
    assert.equal(client.ends, 0, "the response has not ended");
    assert.equal(drained, false, "the drain waits for the open response");
    bodies[0]!.finish();
    assert.equal(await within(client.ended, "the body's own end"), "end");
    assert.equal(client.text(), "hello\nstill here\n");
    await within(closing, "the drain");
  });
});
