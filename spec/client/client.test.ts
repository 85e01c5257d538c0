// keel/client against real servers on loopback: URLs, encodings and bodies as the routes read
// them, answers decoded and typed per status. Includes the sample service through SampleRoutes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { App, silentLogger, type ListeningServer } from "../../lib/index.js";
import { client } from "../../lib/client/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { createSampleApp, DEV_JWT_SECRET, type SampleRoutes } from "../../lib/sample/index.js";
import { fixtureRoutes } from "./fixture-routes.js";


describe("keel/client", () => {
  let server: ListeningServer;
  let sample: ListeningServer;
  before(async () => {
    const app = new App({ logger: silentLogger }).routes(fixtureRoutes);
    server = await app.listen({ port: 0, host: "127.0.0.1" });
    sample = await createSampleApp({ logger: silentLogger, env: "development" }).listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await server.close();
    await sample.close();
  });

  it("fills path parameters (encoded), query strings (arrays repeated) and decodes typed JSON", async () => {
    const api = client<typeof fixtureRoutes>(server.url);
    const r = await api.get("/items/{id}", { params: { id: 42 }, query: { verbose: true, tag: ["a b", "c/d"] } });
    assert.equal(r.status, 200);
    if (r.ok && r.status === 200) {
      const name: string = r.body.name;
      assert.equal(name, "item 42 (verbose)");
      assert.deepEqual(r.body.tags, ["a b", "c/d"]);
    } else assert.fail("expected 200");
    const rest = await api.get("/files/{*rest}", { params: { rest: "a b/c.txt" } });
    assert.deepEqual(rest.body, { rest: "a b/c.txt" });
    const colon = await api.get("/free/:name", { params: { name: "é/x" } });
    assert.equal(colon.body, "hi é/x");
  });

  it("sends JSON, text and form bodies as their extractors read them, with required headers", async () => {
    const seen: string[] = [];
    const api = client<typeof fixtureRoutes>(server.url + "/", {
      headers: () => ({ "x-common": "1" }),
      fetch: (url, init) => {
        seen.push(`${init.method} ${url} ${(init.headers as Record<string, string>)["content-type"] ?? ""} ${(init.headers as Record<string, string>)["x-common"]}`);
        return fetch(url, init);
      },
    });
    const made = await api.post("/items", { headers: { "x-tenant": "acme" }, json: { name: "box" } });
    assert.equal(made.status, 201);
    assert.deepEqual(made.body, { id: 7, name: "acme:box", tags: [] });
    const note = await api.post("/notes", { text: "héllo" });
    assert.deepEqual(note.body, { got: "héllo" });
    const f = await api.post("/forms", { form: { a: "x&y", b: ["1", "2"] } });
    assert.deepEqual(f.body, { a: "x&y", b: ["1", "2"] });
    assert.deepEqual(seen, [
      `POST ${server.url}/items application/json 1`,
      `POST ${server.url}/notes text/plain; charset=utf-8 1`,
      `POST ${server.url}/forms application/x-www-form-urlencoded 1`,
    ]);
  });

  it("gives undefined for 204 and the uniform error body for error statuses", async () => {
    const api = client<typeof fixtureRoutes>(server.url);
    const gone = await api.delete("/items/{id}", { params: { id: 1 } });
    assert.equal(gone.status, 204);
    assert.equal(gone.ok, true);
    assert.equal(gone.body, undefined);
    const bad = await api.get("/items/{id}", { params: { id: "x" as unknown as number } });
    assert.equal(bad.status, 422);
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.body?.error.type, "validation_error");
  });

  it("rejects on a network failure rather than inventing a status", async () => {
    const api = client<typeof fixtureRoutes>("http://127.0.0.1:1");
    await assert.rejects(api.get("/items/{id}", { params: { id: 1 } }));
  });

  it("calls the sample service through SampleRoutes", async () => {
    const api = client<SampleRoutes>(sample.url);
    const hello = await api.get("/hello");
    assert.equal(hello.body, "Hello, World!");
    const user = await api.get("/users/{id}", { params: { id: 1 } });
    // `ok` narrows to the declared success statuses; their bodies are typed by the schemas.
    if (user.ok) assert.equal(user.body.email, "alice@example.com");
    else assert.fail(`expected 200, got ${user.status}`);
    const missing = await api.get("/users/{id}", { params: { id: 999999 } });
    assert.equal(missing.status, 404);
    if (missing.status === 404) assert.equal(missing.body?.error.type, "not_found");
    const createdUser = await api.post("/users", { json: { email: "new@example.com", password: "long enough" } });
    assert.equal(createdUser.status, 201);
    if (createdUser.ok) assert.equal(createdUser.body.email, "new@example.com");
    const invalid = await api.post("/users", { json: { email: "nope", password: "short" } });
    assert.equal(invalid.status, 422);
    const page = await api.get("/api/v1/users", { query: { limit: 2 } });
    if (page.ok) assert.equal(page.body.users.length, 2);
    else assert.fail(`expected 200, got ${page.status}`);
    const projects = await api.get("/projects", { headers: { "x-tenant-id": "acme" } });
    if (projects.ok) assert.equal(projects.body.service, "acme");
    else assert.fail(`expected 200, got ${projects.status}`);
    const token = signJwt({ role: "user" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "alice", expiresIn: 60 });
    const me = await api.get("/api/v1/me", { headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual(me.body, { sub: "alice", role: "user" });
    const anonymous = await api.get("/api/v1/me");
    assert.equal(anonymous.status, 401);
  });
});
