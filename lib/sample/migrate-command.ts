// `node dist/server.js migrate [--data-dir DIR]`: applies the sample's migrations and exits, the
// release step of a deployment (exit 0 applied or up to date, 1 failed, 2 bad arguments). With
// DATABASE_URL the database is that Postgres; otherwise the SQLite file under the data directory.
import type { Logger } from "../index.js";
import { DEFAULT_DATA_DIR, openSamplePostgres, openSampleSqlite } from "./database.js";

interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** `--data-dir DIR` or `--data-dir=DIR`, else KEEL_DATA_DIR, else the default. */
function dataDirOf(argv: readonly string[], env: NodeJS.ProcessEnv): string | Error {
  let dir: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--data-dir" && argv[i + 1] !== undefined) dir = argv[++i];
    else if (arg.startsWith("--data-dir=")) dir = arg.slice("--data-dir=".length);
    else return new Error(`migrate: unexpected argument ${JSON.stringify(arg)} (migrate [--data-dir DIR])`);
  }
  dir ??= env["KEEL_DATA_DIR"];
  return dir === undefined || dir.trim() === "" ? DEFAULT_DATA_DIR : dir;
}

export async function runMigrateCommand(argv: readonly string[], io: CommandIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const dir = dataDirOf(argv, env);
  if (dir instanceof Error) {
    io.stderr(dir.message + "\n");
    return 2;
  }
  // What migration prints is a few lines for a person at a terminal: text, not JSON.
  const logger: Logger = {
    level: 30,
    log: (level, msg, fields) => (level >= 40 ? io.stderr : io.stdout)(`${msg}${fields === undefined ? "" : " " + JSON.stringify(fields)}\n`),
  };
  try {
    const url = env["DATABASE_URL"];
    const db = url !== undefined && url.trim() !== "" ? await openSamplePostgres(url, true, logger) : await openSampleSqlite(dir, logger);
    await db?.close();
    return 0;
  } catch (err) {
    io.stderr(`migrate: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}
