// The sample's user table in a database (SQLite or Postgres, through SqlDatabase). The SQL is the
// same for both: `insert ... returning` exists in SQLite 3.35+ and Postgres. The table and its
// twelve seed users come from the migrations under lib/sample/migrations/<dialect>/.
import type { SqlDatabase } from "../sqlite/index.js";
import type { UserRecord, UserTable } from "./users.js";

interface UserRow {
  id: unknown;
  email: unknown;
}

/** Postgres may hand ids and counts back as bigint or text (int8): the API's ids are numbers. */
function user(row: UserRow): UserRecord {
  return { id: Number(row.id), email: String(row.email) };
}

export class SqlUserTable implements UserTable {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async find(id: number): Promise<UserRecord | undefined> {
    const rows = await this.#db.sql<UserRow>`select id, email from users where id = ${id}`;
    return rows.length === 0 ? undefined : user(rows[0]!);
  }

  async insert(email: string): Promise<UserRecord> {
    // A taken email fails here, on the unique index (SQLite's SQLITE_CONSTRAINT_UNIQUE, Postgres's
    // 23505): the error goes up as it is and keel/db-errors answers 409.
    const rows = await this.#db.sql<UserRow>`insert into users (email) values (${email}) returning id, email`;
    return user(rows[0]!);
  }

  async pageAfter(afterId: number, limit: number): Promise<UserRecord[]> {
    const rows = await this.#db.sql<UserRow>`select id, email from users where id > ${afterId} order by id limit ${limit}`;
    return rows.map(user);
  }

  async count(): Promise<number> {
    const rows = await this.#db.sql<{ n: unknown }>`select count(*) as n from users`;
    return Number(rows[0]!.n);
  }
}
