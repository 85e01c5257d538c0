// Users: schemas, the table's interface with its in-memory store (one per app, seeded; the SQL
// one is sql-users.ts), and the routes that use it:
// `GET /users/{id}`, `POST /users` (deduplicated by Idempotency-Key) and the cached, negotiated,
// paginated `GET /api/v1/users` (`limit` up to 100, an opaque `cursor` for the next page).
import { ApiError, created, json, path, query, raise, route, t, type Static } from "../index.js";
import { idempotency, type IdempotencyRecord, type ResponseCache, type Store } from "../middleware/index.js";
import { defined } from "../plugin.js";

export const User = t.named("User", t.object({ id: t.u64(), email: t.string({ format: "email" }) }));
export const CreateUser = t.named(
  "CreateUser",
  t.object({
    email: t.string({ email: true }),
    password: t.string({ length: { min: 8 } }),
  }),
);
const UserList = t.named(
  "UserList",
  t.object({
    users: t.array(User),
    total: t.u64(),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: t.nullable(t.string()),
  }),
);

/** Largest page; the default page is smaller. Lists never grow with the table. */
export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 20;
const ListQuery = t.object({
  limit: t.optional(t.integer({ range: { min: 1, max: MAX_PAGE_SIZE } })),
  cursor: t.optional(t.string({ regex: "^[A-Za-z0-9_-]{1,24}$" })),
});

/** The cursor is opaque to clients: the last id of the page, base64url-encoded. */
function encodeCursor(lastId: number): string {
  return Buffer.from(`u${lastId}`).toString("base64url");
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, "base64url").toString("latin1");
  const id = /^u(\d{1,15})$/.exec(text);
  if (id === null) throw ApiError.badRequest("Invalid cursor: pass back the next_cursor of the previous page");
  return Number(id[1]);
}

export type UserRecord = Static<typeof User>;

const SEED = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj"];

/**
 * The user table as the routes use it: asynchronous, so a database can stand behind it. The email
 * is unique: `insert` of a taken one rejects with the database's unique violation, which
 * keel/db-errors answers 409 (the table's unique index decides, not a look-up before the insert).
 */
export interface UserTable {
  find(id: number): Promise<UserRecord | undefined>;
  insert(email: string): Promise<UserRecord>;
  /** Up to `limit` users with ids above `afterId`, in id order (ids only grow). */
  pageAfter(afterId: number, limit: number): Promise<UserRecord[]>;
  count(): Promise<number>;
}

/** The memory table's duplicate email, shaped as PostgreSQL reports one (SQLSTATE 23505), so keel/db-errors maps it as it maps the databases'. */
export class DuplicateEmailError extends Error {
  override readonly name = "DuplicateEmailError";
  readonly code = "23505";
  readonly constraint = "users_email_key";
  readonly table = "users";
}

/** The sample's user table in memory (Node 20, tests). Each app gets its own unless one is passed in. */
export class UserStore implements UserTable {
  readonly #users = new Map<number, UserRecord>();
  readonly #emails = new Set<string>();
  /** The same records by ascending id (ids only grow), for pages. */
  readonly #ordered: UserRecord[] = [];
  #nextId = 1;

  /** A store holding `emails` as users 1..n (default: the twelve sample users). */
  constructor(emails: readonly string[] = SEED.map((name) => `${name}@example.com`)) {
    for (const email of emails) this.add(email);
  }

  get(id: number): UserRecord | undefined {
    return this.#users.get(id);
  }

  /** Adds a user now; a taken email throws DuplicateEmailError, as the SQL table's unique index does. */
  add(email: string): UserRecord {
    if (this.#emails.has(email)) throw new DuplicateEmailError(`duplicate key value violates unique constraint "users_email_key": ${email}`);
    const user: UserRecord = { id: this.#nextId++, email };
    this.#users.set(user.id, user);
    this.#emails.add(email);
    this.#ordered.push(user);
    return user;
  }

  get size(): number {
    return this.#ordered.length;
  }

  /** Up to `limit` users with ids above `afterId`, in id order. */
  page(afterId: number, limit: number): UserRecord[] {
    let lo = 0;
    let hi = this.#ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#ordered[mid]!.id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return this.#ordered.slice(lo, lo + limit);
  }

  list(): UserRecord[] {
    return [...this.#ordered];
  }

  find(id: number): Promise<UserRecord | undefined> {
    return Promise.resolve(this.get(id));
  }

  insert(email: string): Promise<UserRecord> {
    try {
      return Promise.resolve(this.add(email));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  pageAfter(afterId: number, limit: number): Promise<UserRecord[]> {
    return Promise.resolve(this.page(afterId, limit));
  }

  count(): Promise<number> {
    return Promise.resolve(this.size);
  }
}

export type UserRoutes = ReturnType<typeof userRoutes>;

/** `idempotencyStore`: where idempotency records live (default: in memory; Redis with REDIS_URL). */
export function userRoutes(users: UserTable, cache: ResponseCache, idempotencyStore?: Store<IdempotencyRecord>) {
  const onceByKey = idempotency(defined({ store: idempotencyStore }));
  const getUser = route.get(
    "/users/{id}",
    { tag: "users", summary: "Get a user", responses: { 200: User, 400: "The id is zero", 404: "No user has this id" } },
    [path("id", t.u64())],
    async (id) => {
      if (id === 0) throw ApiError.badRequest("id must be greater than zero");
      return (await users.find(id)) ?? raise(ApiError.notFound(`user ${id} not found`));
    },
  );
  const createUser = route.post(
    "/users",
    { tag: "users", summary: "Create a user (send Idempotency-Key to make retries safe)", responses: { 201: User, 409: "A user has this email already" }, layers: [onceByKey] },
    [json(CreateUser)],
    async (body) => {
      // A taken email: the table's unique violation propagates; the app's mapDatabaseError answers 409.
      const user = await users.insert(body.email);
      cache.invalidateTag("users");
      return created(user, { location: `/users/${user.id}` });
    },
  );
  /** JSON by default; TOON with `Accept: application/toon` (see the token-count headers). Cached 30 s. */
  const listUsers = route.get(
    "/api/v1/users",
    {
      tag: "users",
      summary: "List users a page at a time (limit up to 100, cursor from next_cursor); JSON, or TOON with Accept: application/toon",
      responses: { 200: UserList, 400: "The cursor is not one this service issued" },
      layers: [cache],
      config: { negotiated: true, cache: { tags: ["users"] } },
    },
    [query(ListQuery)],
    async (q) => {
      const limit = q.limit ?? DEFAULT_PAGE_SIZE;
      const page = await users.pageAfter(q.cursor === undefined ? 0 : decodeCursor(q.cursor), limit + 1);
      const more = page.length > limit;
      if (more) page.length = limit;
      return { users: page, total: await users.count(), next_cursor: more ? encodeCursor(page[page.length - 1]!.id) : null };
    },
  );
  return { getUser, createUser, listUsers };
}
