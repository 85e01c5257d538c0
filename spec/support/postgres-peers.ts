// `pg` (node-postgres) and `postgres` (postgres.js) as test peers, installed on demand
// (test-peers.ts) at pinned versions and loaded with require from their folders: the drivers
// keel/db-errors is checked against and the transaction option and the benchmark run over.
// `postgresPeersSkip` is the reason to skip when either is missing.
import { createRequire } from "node:module";
import { join } from "node:path";
import { testPeer } from "./test-peers.js";

type Any = any;

export const PG_VERSION = "8.23.1";
export const POSTGRES_JS_VERSION = "3.4.9";

const [pgDir, postgresDir] = await Promise.all([testPeer("pg", PG_VERSION), testPeer("postgres", POSTGRES_JS_VERSION)]);

export const postgresPeersSkip: string | false =
  pgDir === null || postgresDir === null ? `pg@${PG_VERSION} or postgres@${POSTGRES_JS_VERSION} could not be installed into .tmp/test-peers (offline?)` : false;
/** node-postgres: `new pg.Client({ connectionString })`, `new pg.Pool(...)`. */
export const pg: Any = pgDir === null ? undefined : createRequire(join(pgDir, "package.json"))(pgDir);
/** postgres.js: `postgres(url, options)` gives the `sql` tag. */
export const postgresJs: Any = postgresDir === null ? undefined : createRequire(join(postgresDir, "package.json"))(postgresDir);
