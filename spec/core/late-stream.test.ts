// A stream answer that comes after the client went away is dropped, its source destroyed, and
// nothing escapes as an unhandled rejection (node:stream's pipeline() throws on a destroyed
// destination on Node 24, which inside an async handler's continuation was exactly that).
import assert from "node:assert/strict";
import { request } from "node:http";
import { Readable } from "node:stream";
import { test } from "node:test";
import { App, requestContext, route, silentLogger, stream } from "../../lib/index.js";

test("a stream answer for a client that already went away is dropped: the source is destroyed, no unhandled rejection", async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => void rejections.push(reason);
  process.on("unhandledRejection", onRejection);
  let source: Readable | undefined;
  let answered!: () => void;
  const sent = new Promise<void>((resolve) => (answered = resolve));
  let began!: () => void;
  const started = new Promise<void>((resolve) => (began = resolve));
  const app = new App({ logger: silentLogger }).routes([
    route.get("/late", {}, [requestContext()], async (info) => {
      began();
      // Answer only once the client is gone.
      await new Promise<void>((resolve) => (info.signal.aborted ? resolve() : info.signal.addEventListener("abort", () => resolve(), { once: true })));
      source = new Readable({ read() {} });
      setImmediate(answered);
      return stream(source, "text/plain");
    }),
  ]);
  const server = await app.listen({ port: 0 });
  try {
    const req = request(`${server.url}/late`);
    req.on("error", () => undefined);
    req.end();
    await started;
    req.destroy();
    await sent;
    // Let the writer's continuation and any rejection it would cause run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(source !== undefined, "the handler answered");
    assert.equal(source.destroyed, true, "the source of the dropped answer is destroyed");
    assert.deepEqual(rejections, []);
  } finally {
    process.off("unhandledRejection", onRejection);
    await server.close();
  }
});
