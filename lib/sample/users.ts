// Users: schemas, an in-memory store (one per app, seeded), and the routes that use it:
// `GET /users/{id}`, `POST /users` (deduplicated by Idempotency-Key) and the cached, negotiated
// `GET /api/v1/users`.
import { ApiError, created, json, path, raise, route, t, type RouteDefinition, type Static } from "../index.js";
import { idempotency, type ResponseCache } from "../middleware/index.js";

export const User = t.named("User", t.object({ id: t.u64(), email: t.string({ format: "email" }) }));
export const CreateUser = t.named(
  "CreateUser",
  t.object({
    email: t.string({ email: true }),
    password: t.string({ length: { min: 8 } }),
  }),
);
const UserList = t.named("UserList", t.object({ users: t.array(User), total: t.u64() }));

export type UserRecord = Static<typeof User>;

const SEED = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj"];

/** The sample's user table. Each app gets its own unless one is passed in. */
export class UserStore {
  readonly #users = new Map<number, UserRecord>();
  #nextId = 1;

  /** A store holding `emails` as users 1..n (default: the twelve sample users). */
  constructor(emails: readonly string[] = SEED.map((name) => `${name}@example.com`)) {
    for (const email of emails) this.add(email);
  }

  get(id: number): UserRecord | undefined {
    return this.#users.get(id);
  }

  add(email: string): UserRecord {
    const user: UserRecord = { id: this.#nextId++, email };
    this.#users.set(user.id, user);
    return user;
  }

  list(): UserRecord[] {
    return [...this.#users.values()];
  }
}

export interface UserRoutes {
  getUser: RouteDefinition;
  createUser: RouteDefinition;
  listUsers: RouteDefinition;
}

export function userRoutes(users: UserStore, cache: ResponseCache): UserRoutes {
  const getUser = route.get("/users/{id}", { tag: "users", summary: "Get a user", responses: { 200: User } }, [path("id", t.u64())], (id) => {
    if (id === 0) throw ApiError.badRequest("id must be greater than zero");
    return users.get(id) ?? raise(ApiError.notFound(`user ${id} not found`));
  });
  const createUser = route.post(
    "/users",
    { tag: "users", summary: "Create a user (send Idempotency-Key to make retries safe)", responses: { 201: User }, layers: [idempotency()] },
    [json(CreateUser)],
    (body) => {
      const user = users.add(body.email);
      cache.invalidateTag("users");
      return created(user, { location: `/users/${user.id}` });
    },
  );
  /** JSON by default; TOON with `Accept: application/toon` (see the token-count headers). Cached 30 s. */
  const listUsers = route.get(
    "/api/v1/users",
    {
      tag: "users",
      summary: "List users (JSON, or TOON with Accept: application/toon)",
      responses: { 200: UserList },
      layers: [cache],
      config: { negotiated: true, cache: { tags: ["users"] } },
    },
    [],
    () => {
      const list = users.list();
      return { users: list, total: list.length };
    },
  );
  return { getUser, createUser, listUsers };
}
