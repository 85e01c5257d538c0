// The files of `keel new`: plain ESM JavaScript with JSDoc types, so `npm start` and `npm test`
// run with the `node` on PATH on every supported line (running TypeScript directly needs Node
// 22.6+ and a flag; a compiler would be a dependency). keel itself is vendored as the single-file
// bundle plus its declarations, which editors read for the JSDoc (`// @ts-check`).

export const STARTER_PACKAGE = (name: string, engines: string): string =>
  JSON.stringify(
    {
      name,
      version: "0.1.0",
      private: true,
      type: "module",
      engines: { node: engines },
      scripts: { start: "node server.js", test: "node --test" },
    },
    null,
    2,
  ) + "\n";

export const STARTER_APP = `// @ts-check
// The app: its routes and layers. Making it starts nothing: server.js listens, the tests inject.
// \`keel routes\` and \`keel openapi\` read this module (they call createApp()).
import { App, ApiError, created, json, path, raise, route, t } from "./vendor/keel.js";

const Greeting = t.object({ message: t.string() });
const NewNote = t.object({ text: t.string({ length: { min: 1, max: 200 } }) });
const Note = t.object({ id: t.u64(), text: t.string() });

/** @param {import("./vendor/keel.js").AppOptions} [options] */
export function createApp(options = {}) {
  /** @type {Map<number, { id: number, text: string }>} */
  const notes = new Map();

  const hello = route.get("/hello/{name}", { summary: "Greet someone", responses: { 200: Greeting } },
    [path("name", t.string({ length: { min: 1, max: 64 } }))],
    (name) => ({ message: "hello, " + name }));

  const addNote = route.post("/notes", { summary: "Keep a note", responses: { 201: Note } },
    [json(NewNote)],
    (body) => {
      const note = { id: notes.size + 1, text: body.text };
      notes.set(note.id, note);
      return created(note);
    });

  const getNote = route.get("/notes/{id}", { summary: "Read a note", responses: { 200: Note, 404: "No note has this id" } },
    [path("id", t.u64())],
    (id) => notes.get(id) ?? raise(ApiError.notFound("note " + id + " not found")));

  return new App(options).routes(hello, addNote, getNote);
}
`;

export const STARTER_SERVER = `// @ts-check
// npm start: listen on HOST:PORT (default 127.0.0.1:3000); SIGTERM or SIGINT drain and exit.
import { createApp } from "./app.js";

const controller = new AbortController();
for (const signal of /** @type {const} */ (["SIGTERM", "SIGINT"])) process.once(signal, () => controller.abort());
const server = await createApp().listen({
  host: process.env.HOST ?? "127.0.0.1",
  port: Number(process.env.PORT ?? 3000),
  signal: controller.signal,
});
console.log("listening on " + server.url);
`;

export const STARTER_TEST = `// @ts-check
// npm test: the whole pipeline (routing, validation, replies) in process with app.inject.
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../vendor/keel.js";
import { createApp } from "../app.js";

test("GET /hello/{name} greets", async () => {
  const app = createApp({ logger: silentLogger });
  const res = await app.inject({ method: "GET", url: "/hello/ada" });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { message: "hello, ada" });
});

test("a note is kept and read back; an unknown one is 404", async () => {
  const app = createApp({ logger: silentLogger });
  const made = await app.inject({ method: "POST", url: "/notes", body: { text: "buy milk" } });
  assert.equal(made.status, 201);
  assert.deepEqual(made.json(), { id: 1, text: "buy milk" });
  assert.deepEqual((await app.inject({ method: "GET", url: "/notes/1" })).json(), { id: 1, text: "buy milk" });
  assert.equal((await app.inject({ method: "GET", url: "/notes/2" })).status, 404);
});

test("an empty note is a 422 naming the field", async () => {
  const app = createApp({ logger: silentLogger });
  const res = await app.inject({ method: "POST", url: "/notes", body: { text: "" } });
  assert.equal(res.status, 422);
  const body = /** @type {{ error: { fields: Array<{ field: string }> } }} */ (res.json());
  assert.equal(body.error.fields[0]?.field, "text");
});
`;

export const STARTER_README = (name: string): string => `# ${name}

A keel app. keel is vendored in \`vendor/\` (one file, no dependencies).

- \`npm start\`: serve on 127.0.0.1:3000 (\`PORT\`, \`HOST\`)
- \`npm test\`: the tests in \`test/\`, with \`node --test\`
- \`keel dev\`: serve and restart on every change; \`keel routes\`, \`keel openapi\`: read \`app.js\`

The sources are plain JavaScript with JSDoc types (\`vendor/keel.d.ts\`), so they run with
\`node\` as they are.
`;
