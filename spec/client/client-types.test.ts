// Type-level tests of keel/client (checked by tsc in `npm test`): each `@ts-expect-error` line must
// fail to compile. Nothing here sends a request: the calls sit in a function that never runs.
import assert from "node:assert/strict";
import { it } from "node:test";
import { client, type PathParamNames } from "../../lib/client/index.js";
import type { SampleRoutes } from "../../lib/sample/index.js";
import { fixtureRoutes } from "./fixture-routes.js";

const names: PathParamNames<"/a/{x}/b/:y/{*rest}"> = "rest";
// @ts-expect-error not a parameter of the path
const notName: PathParamNames<"/a/{x}"> = "y";

export async function neverRun(): Promise<void> {
  const api = client<typeof fixtureRoutes>("http://127.0.0.1");
  const sample = client<SampleRoutes>("http://127.0.0.1");

  // @ts-expect-error unknown path
  await api.get("/nope");
  // @ts-expect-error a path declared for another method
  await api.post("/items/{id}", { params: { id: 1 } });
  // @ts-expect-error the path has a parameter: params are required
  await api.get("/items/{id}");
  // @ts-expect-error id is an integer
  await api.get("/items/{id}", { params: { id: "one" } });
  // @ts-expect-error the body's name must be a string
  await api.post("/items", { headers: { "x-tenant": "t" }, json: { name: 1 } });
  // @ts-expect-error the x-tenant header is required
  await api.post("/items", { json: { name: "x" } });
  // @ts-expect-error the route reads text, not JSON
  await api.post("/notes", { json: "x" });
  // @ts-expect-error verbose is a boolean
  await api.get("/items/{id}", { params: { id: 1 }, query: { verbose: "yes" } });

  const r = await api.get("/items/{id}", { params: { id: 1 } });
  if (r.ok) {
    const status: 200 = r.status;
    const tags: string[] = r.body.tags;
    void status, tags;
  } else {
    const type: string | undefined = r.body?.error.type;
    void type;
  }
  const del = await api.delete("/items/{id}", { params: { id: 1 } });
  if (del.ok) {
    const nothing: undefined = del.body;
    void nothing;
  }

  // The sample: no input needed for /hello; the 201 body of POST /users is a User.
  const hello = await sample.get("/hello");
  if (hello.ok) {
    const s: string = hello.body;
    void s;
  }
  const made = await sample.post("/users", { json: { email: "a@example.com", password: "long enough" } });
  if (made.ok) {
    const id: number = made.body.id;
    // @ts-expect-error the User schema has no password
    void made.body.password;
    void id;
  }
  // @ts-expect-error POST /users takes a JSON body
  await sample.post("/users");
  // @ts-expect-error GET /projects needs its x-tenant-id header
  await sample.get("/projects");
  await sample.get("/api/v1/users", { query: { limit: 10 } });
  // @ts-expect-error limit is an integer
  await sample.get("/api/v1/users", { query: { limit: "ten" } });
}

it("client types (checked by tsc)", () => {
  assert.equal(typeof neverRun, "function");
  assert.ok(names && notName);
});
