// The contract test: every operation of the sample service's OpenAPI document is called with valid
// and invalid requests, and each answer must be one the document promises: its status is listed
// for that operation, its content type is one of that status's media types, and its JSON body
// validates against the documented schema. An operation without scenarios here fails the test, so
// a new route cannot skip it.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { silentLogger, type App, type InjectResponse } from "../../lib/index.js";
import { signJwt } from "../../lib/jose/index.js";
import { createSampleApp, DEV_JWT_SECRET } from "../../lib/sample/index.js";
import { compileSchema, type CompiledSchema, type JsonSchema } from "../../lib/json-schema/index.js";
import { production } from "../../lib/service/index.js";

interface Request {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Another client than the default (each client has its own write budget). */
  remoteAddress?: string;
}
/** One call: what to send and the status it must get (the document must list it too). */
interface Scenario {
  name: string;
  expect: number;
  request: (state: State) => Request | Promise<Request>;
}
interface State {
  app: App;
  user: string;
  admin: string;
}

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>; parameters?: unknown[]; requestBody?: unknown; security?: unknown[] }>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

const JSON_BODY = { "content-type": "application/json" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function csrfPair(app: App): Promise<{ cookie: string; token: string }> {
  const issued = await app.inject({ url: "/api/v1/form" });
  const token = /csrf_token=([^;]+)/.exec(String(issued.headers["set-cookie"]))?.[1];
  assert.ok(token, "GET /api/v1/form sets the csrf cookie");
  return { cookie: `csrf_token=${token}`, token };
}

async function jobId(app: App): Promise<string> {
  const r = await app.inject({ method: "POST", url: "/api/v1/reports", headers: JSON_BODY, body: JSON.stringify({ kind: "usage", month: "2026-01" }) });
  return r.json<{ id: string }>().id;
}

const BOUNDARY = "contractBoundary42";
/** A multipart/form-data request to the upload route: text fields, then files as [name, filename, bytes]. */
function uploadRequest(fields: Record<string, string>, files: [string, string, string][]): Request {
  let body = "";
  for (const [name, value] of Object.entries(fields)) body += `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  for (const [name, filename, bytes] of files) {
    body += `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: text/plain\r\n\r\n${bytes}\r\n`;
  }
  body += `--${BOUNDARY}--\r\n`;
  return { method: "POST", url: "/api/v1/uploads", headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` }, body, remoteAddress: "10.7.7.7" };
}

/** Scenarios per documented operation (`METHOD /template`). */
const SCENARIOS: Record<string, Scenario[]> = {
  "GET /": [{ name: "home page", expect: 200, request: () => ({ url: "/" }) }],
  "GET /api/v1/events": [
    { name: "one tick", expect: 200, request: () => ({ url: "/api/v1/events?max=1" }) },
    { name: "max zero", expect: 422, request: () => ({ url: "/api/v1/events?max=0" }) },
  ],
  "POST /api/v1/uploads": [
    { name: "title and file", expect: 201, request: () => uploadRequest({ title: "notes" }, [["file", "notes.txt", "hello"]]) },
    { name: "no title", expect: 422, request: () => uploadRequest({}, [["file", "notes.txt", "hello"]]) },
    { name: "two files", expect: 413, request: () => uploadRequest({ title: "x" }, [["file", "a.txt", "a"], ["file", "b.txt", "b"]]) },
    { name: "truncated body", expect: 400, request: () => ({ ...uploadRequest({ title: "x" }, []), body: `--${BOUNDARY}\r\ncontent-disposition: form-data; name="title"\r\n\r\nx` }) },
    { name: "JSON body", expect: 415, request: () => ({ method: "POST", url: "/api/v1/uploads", headers: JSON_BODY, body: "{}", remoteAddress: "10.7.7.7" }) },
  ],
  "GET /hello": [{ name: "hello", expect: 200, request: () => ({ url: "/hello" }) }],
  "GET /users/{id}": [
    { name: "existing user", expect: 200, request: () => ({ url: "/users/1" }) },
    { name: "id zero", expect: 400, request: () => ({ url: "/users/0" }) },
    { name: "unknown id", expect: 404, request: () => ({ url: "/users/987654" }) },
    { name: "id not a number", expect: 422, request: () => ({ url: "/users/abc" }) },
    { name: "id over the parameter length limit", expect: 400, request: () => ({ url: `/users/${"9".repeat(101)}` }) },
    { name: "id badly percent-encoded", expect: 400, request: () => ({ url: "/users/%E0%A4%A" }) },
  ],
  "POST /users": [
    { name: "valid user", expect: 201, request: () => ({ method: "POST", url: "/users", headers: JSON_BODY, body: '{"email":"new@example.com","password":"longenough"}' }) },
    { name: "invalid email", expect: 422, request: () => ({ method: "POST", url: "/users", headers: JSON_BODY, body: '{"email":"nope","password":"longenough"}' }) },
    { name: "malformed JSON", expect: 400, request: () => ({ method: "POST", url: "/users", headers: JSON_BODY, body: '{"email":' }) },
    { name: "form body", expect: 415, request: () => ({ method: "POST", url: "/users", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "email=a" }) },
    { name: "body over 1 MiB", expect: 413, request: () => ({ method: "POST", url: "/users", headers: JSON_BODY, body: `{"email":"${"a".repeat(1_100_000)}"}` }) },
  ],
  "GET /projects": [
    { name: "tenant header", expect: 200, request: () => ({ url: "/projects", headers: { "x-tenant-id": "acme" } }) },
    { name: "no tenant header", expect: 400, request: () => ({ url: "/projects" }) },
    { name: "blank tenant header", expect: 400, request: () => ({ url: "/projects", headers: { "x-tenant-id": "   " } }) },
  ],
  "POST /echo-text": [
    { name: "text body", expect: 200, request: () => ({ method: "POST", url: "/echo-text", headers: { "content-type": "text/plain; charset=utf-8" }, body: "héllo" }) },
    { name: "JSON body", expect: 415, request: () => ({ method: "POST", url: "/echo-text", headers: JSON_BODY, body: '"x"' }) },
  ],
  "GET /api/v1/ping": [{ name: "ping", expect: 200, request: () => ({ url: "/api/v1/ping" }) }],
  "GET /api/v1/users": [
    { name: "first page", expect: 200, request: () => ({ url: "/api/v1/users?limit=5" }) },
    { name: "TOON page", expect: 200, request: () => ({ url: "/api/v1/users", headers: { accept: "application/toon" } }) },
    { name: "limit over 100", expect: 422, request: () => ({ url: "/api/v1/users?limit=101" }) },
    { name: "forged cursor", expect: 400, request: () => ({ url: "/api/v1/users?cursor=abc" }) },
    { name: "unacceptable media type", expect: 406, request: () => ({ url: "/api/v1/users", headers: { accept: "application/xml" } }) },
  ],
  "GET /api/v1/broken": [{ name: "always fails", expect: 500, request: () => ({ url: "/api/v1/broken" }) }],
  "GET /api/v1/me": [
    { name: "valid token", expect: 200, request: (s) => ({ url: "/api/v1/me", headers: bearer(s.user) }) },
    { name: "no token", expect: 401, request: () => ({ url: "/api/v1/me" }) },
    { name: "forged token", expect: 401, request: (s) => ({ url: "/api/v1/me", headers: bearer(`${s.user.slice(0, -4)}AAAA`) }) },
  ],
  "DELETE /api/v1/admin/cache": [
    { name: "admin", expect: 204, request: (s) => ({ method: "DELETE", url: "/api/v1/admin/cache", headers: bearer(s.admin) }) },
    { name: "not an admin", expect: 403, request: (s) => ({ method: "DELETE", url: "/api/v1/admin/cache", headers: bearer(s.user) }) },
    { name: "no token", expect: 401, request: () => ({ method: "DELETE", url: "/api/v1/admin/cache" }) },
  ],
  "GET /api/v1/form": [{ name: "issue a token", expect: 200, request: () => ({ url: "/api/v1/form" }) }],
  "POST /api/v1/form": [
    {
      name: "token in header and cookie",
      expect: 200,
      request: async (s) => {
        const { cookie, token } = await csrfPair(s.app);
        return { method: "POST", url: "/api/v1/form", headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-csrf-token": token }, body: "message=hi" };
      },
    },
    { name: "no token", expect: 403, request: () => ({ method: "POST", url: "/api/v1/form", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "message=hi" }) },
    {
      name: "empty message",
      expect: 422,
      request: async (s) => {
        const { cookie, token } = await csrfPair(s.app);
        return { method: "POST", url: "/api/v1/form", headers: { "content-type": "application/x-www-form-urlencoded", cookie, "x-csrf-token": token }, body: "message=" };
      },
    },
  ],
  "POST /api/v1/reports": [
    { name: "a report", expect: 202, request: () => ({ method: "POST", url: "/api/v1/reports", headers: JSON_BODY, body: '{"kind":"usage","month":"2026-02"}' }) },
    { name: "bad month", expect: 422, request: () => ({ method: "POST", url: "/api/v1/reports", headers: JSON_BODY, body: '{"kind":"usage","month":"2026-13"}' }) },
    { name: "unknown property", expect: 422, request: () => ({ method: "POST", url: "/api/v1/reports", headers: JSON_BODY, body: '{"kind":"usage","month":"2026-02","x":1}' }) },
    { name: "malformed JSON", expect: 400, request: () => ({ method: "POST", url: "/api/v1/reports", headers: JSON_BODY, body: "{" }) },
  ],
  "GET /api/v1/jobs/{id}": [
    { name: "a job", expect: 200, request: async (s) => ({ url: `/api/v1/jobs/${await jobId(s.app)}` }) },
    { name: "unknown job", expect: 404, request: () => ({ url: "/api/v1/jobs/job_nope" }) },
  ],
  "GET /live": [{ name: "live", expect: 200, request: () => ({ url: "/live" }) }],
  "GET /ready": [{ name: "ready", expect: 200, request: () => ({ url: "/ready" }) }],
  "GET /health": [{ name: "health", expect: 200, request: () => ({ url: "/health" }) }],
};

/** Operations that take input (parameters, a body or credentials) must also be tried with bad input. */
function takesInput(op: Doc["paths"][string][string]): boolean {
  return (op.parameters?.length ?? 0) > 0 || op.requestBody !== undefined || (op.security?.length ?? 0) > 0;
}

function mediaType(r: InjectResponse): string {
  return String(r.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

describe("contract: every answer of the sample is one its OpenAPI document promises", () => {
  let doc: Doc;
  let state: State;
  const validators = new Map<JsonSchema, CompiledSchema>();
  const validatorFor = (schema: JsonSchema): CompiledSchema => {
    let v = validators.get(schema);
    if (v === undefined) {
      v = compileSchema(schema, { components: doc.components?.schemas ?? {} });
      validators.set(schema, v);
    }
    return v;
  };

  before(async () => {
    const prod = production({ service: "keel-sample", logger: silentLogger });
    const app = createSampleApp({ logger: silentLogger, env: "development", production: prod });
    const r = await app.inject({ url: "/docs/openapi.json" });
    assert.equal(r.status, 200);
    doc = r.json<Doc>();
    state = {
      app,
      user: signJwt({ role: "user" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "alice", expiresIn: 300 }),
      admin: signJwt({ role: "admin" }, { algorithm: "HS256", key: DEV_JWT_SECRET, subject: "root", expiresIn: 300 }),
    };
  });

  it("has scenarios for every documented operation, with bad input for those that take input", () => {
    const documented: string[] = [];
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const key = `${method.toUpperCase()} ${p}`;
        documented.push(key);
        const scenarios = SCENARIOS[key];
        assert.ok(scenarios !== undefined, `no contract scenarios for ${key}`);
        // Every operation that can succeed is tried with a request that succeeds.
        if (Object.keys(op.responses).some((s) => Number(s) < 400)) assert.ok(scenarios.some((s) => s.expect < 400), `${key}: no valid request`);
        if (takesInput(op)) assert.ok(scenarios.some((s) => s.expect >= 400 && s.expect < 500), `${key}: no invalid request`);
      }
    }
    for (const key of Object.keys(SCENARIOS)) assert.ok(documented.includes(key), `${key} has scenarios but is not in the document`);
  });

  for (const [key, scenarios] of Object.entries(SCENARIOS)) {
    const [method, template] = key.split(" ") as [string, string];
    for (const scenario of scenarios) {
      it(`${key}: ${scenario.name} → ${scenario.expect}, documented, body valid`, async () => {
        const op = doc.paths[template]?.[method.toLowerCase()];
        assert.ok(op, `${key} is in the document`);
        const req = await scenario.request(state);
        const r = await state.app.inject({ method: req.method ?? method, url: req.url, ...(req.headers ? { headers: req.headers } : {}), ...(req.body !== undefined ? { body: req.body } : {}), ...(req.remoteAddress ? { remoteAddress: req.remoteAddress } : {}) });
        assert.equal(r.status, scenario.expect, `${key} ${scenario.name}: ${r.body.slice(0, 300)}`);
        const documented = op.responses[String(r.status)] ?? op.responses["default"];
        assert.ok(documented, `${key}: status ${r.status} is not documented (documented: ${Object.keys(op.responses).join(", ")})`);
        const content = documented.content;
        if (r.body === "") {
          assert.ok(content === undefined || r.status === 204, `${key} ${r.status}: empty body but the document promises content`);
          return;
        }
        assert.ok(content !== undefined, `${key} ${r.status}: a body the document does not describe`);
        const type = mediaType(r);
        const media = content[type];
        assert.ok(media, `${key} ${r.status}: content-type ${type} is not documented (${Object.keys(content).join(", ")})`);
        if (type === "application/json" || type.endsWith("+json")) {
          assert.ok(media.schema !== undefined, `${key} ${r.status}: no schema for ${type}`);
          const errors = validatorFor(media.schema).validate(JSON.parse(r.body));
          assert.equal(errors, null, `${key} ${r.status}: body does not match the documented schema: ${JSON.stringify(errors)} body=${r.body.slice(0, 300)}`);
        }
      });
    }
  }

  it("a client that keeps writing gets the documented 429 with Retry-After", async () => {
    const op = doc.paths["/echo-text"]?.["post"];
    assert.ok(op?.responses["429"], "POST /echo-text documents 429");
    let limited: InjectResponse | undefined;
    for (let i = 0; i < 40 && limited === undefined; i++) {
      const r = await state.app.inject({ method: "POST", url: "/echo-text", headers: { "content-type": "text/plain" }, body: "x", remoteAddress: "10.9.9.9" });
      if (r.status === 429) limited = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(limited, "the write budget runs out");
    assert.ok(limited.headers["retry-after"], "Retry-After is sent");
    const errors = validatorFor(op.responses["429"]!.content!["application/json"]!.schema!).validate(JSON.parse(limited.body));
    assert.equal(errors, null);
  });
});
