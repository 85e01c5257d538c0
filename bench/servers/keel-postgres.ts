// keel's GET /users/{id} and POST /users against PostgreSQL on loopback, for
// bench/postgres-drivers.ts (issue 35: keel's client vs postgres.js and pg in the same run).
// Bundled into bench/.peers/build/keel-postgres.mjs; announces its port like the HTTP bench servers.
//   node keel-postgres.mjs --driver postgres.js --module <dir of postgres> --url postgres://...
//   node keel-postgres.mjs --driver pg          --module <dir of pg>       --url postgres://...
//   node keel-postgres.mjs --driver keel        --module <bundled keel/postgres .mjs> --url ...
// Each driver gets a pool of --pool connections (default 10) and runs the same two statements,
// prepared once per connection by all three: postgres.js by default, pg with a statement name,
// keel through its statement cache. --pipeline N caps statements in flight per connection
// (keel maxPipeline, postgres.js max_pipeline; pg always runs one at a time); --pipeline default
// (the default) leaves each driver's own setting. The route code is the same for all three; only
// `Users` differs.
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { App, ApiError, created, json, path, raise, route, silentLogger, t } from "../../lib/index.js";
import { announcePending, announceReady, exitOnSignal } from "./common.js";

type Any = any;

interface User {
  id: number;
  email: string;
}

/** The two statements of the scenario, over one driver's pool. */
interface Users {
  get(id: number): Promise<User | undefined>;
  insert(email: string): Promise<User>;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function connect(driver: string, module: string, url: string, pool: number, pipeline: number | undefined): Promise<Users> {
  if (driver === "postgres.js") {
    const postgres = createRequire(join(module, "package.json"))(module) as Any;
    // int8 ids as numbers (the table's ids stay far below 2^53).
    const sql = postgres(url, { max: pool, onnotice: () => {}, ...(pipeline === undefined ? {} : { max_pipeline: pipeline }) });
    await sql`select 1`;
    return {
      async get(id) {
        const rows = await sql`select id::int4 as id, email from bench_users where id = ${id}`;
        return rows[0];
      },
      async insert(email) {
        const rows = await sql`insert into bench_users (email) values (${email}) returning id::int4 as id, email`;
        return rows[0];
      },
    };
  }
  if (driver === "pg") {
    const pg = createRequire(join(module, "package.json"))(module) as Any;
    const db = new pg.Pool({ connectionString: url, max: pool });
    await db.query("select 1");
    return {
      async get(id) {
        const r = await db.query({ name: "bench-get-user", text: "select id::int4 as id, email from bench_users where id = $1", values: [id] });
        return r.rows[0];
      },
      async insert(email) {
        const r = await db.query({ name: "bench-insert-user", text: "insert into bench_users (email) values ($1) returning id::int4 as id, email", values: [email] });
        return r.rows[0];
      },
    };
  }
  if (driver === "keel") {
    const mod = (await import(pathToFileURL(module).href)) as Any;
    if (typeof mod.connectPostgres !== "function") announcePending("keel/postgres does not export connectPostgres");
    const db = mod.connectPostgres(url, { max: pool, ...(pipeline === undefined ? {} : { maxPipeline: pipeline }) });
    await db.ping(5000);
    return {
      async get(id) {
        const rows = await db.sql`select id::int4 as id, email from bench_users where id = ${id}`;
        return rows[0];
      },
      async insert(email) {
        const rows = await db.sql`insert into bench_users (email) values (${email}) returning id::int4 as id, email`;
        return rows[0];
      },
    };
  }
  throw new Error(`--driver is postgres.js, pg or keel (got ${driver})`);
}

async function main(): Promise<void> {
  exitOnSignal();
  const driver = argValue("--driver") ?? "";
  const module = argValue("--module");
  const url = argValue("--url");
  if (module === undefined || url === undefined) throw new Error("--module and --url are required");
  const pipeline = argValue("--pipeline") ?? "default";
  const users = await connect(driver, module, url, Number(argValue("--pool") ?? 10), pipeline === "default" ? undefined : Number(pipeline));
  const newUser = t.object({ email: t.string({ format: "email" }) });
  const app = new App({ logger: silentLogger }).routes(
    route.get("/users/{id}", [path("id", t.u32())], async (id) => (await users.get(id)) ?? raise(ApiError.notFound("No such user"))),
    route.post("/users", [json(newUser)], async (body) => created(await users.insert(body.email))),
  );
  const server = await app.listen({ port: 0, host: "127.0.0.1" });
  announceReady(server.port);
}

main().catch((err: unknown) => {
  process.stderr.write(`keel-postgres: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
