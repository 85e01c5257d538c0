// Type-level tests: `Static<typeof S>` is checked by tsc (npm test typechecks spec/), and the
// `@ts-expect-error` lines fail the typecheck if they ever start compiling. The runtime part only
// makes sure the file runs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileSchema, t, type Static } from "../../lib/json-schema/index.js";

type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function expectType<_T extends true>(): void {}

const CreateUser = t.object({
  email: t.string({ email: true }),
  password: t.string({ length: { min: 8 } }),
});
type CreateUser = Static<typeof CreateUser>;
expectType<Equal<CreateUser, { email: string; password: string }>>();

const Everything = t.object({
  id: t.u64(),
  n: t.i32(),
  ratio: t.number(),
  flag: t.boolean(),
  tags: t.array(t.string()),
  kind: t.literal("user"),
  role: t.enum(["admin", "user"]),
  either: t.union([t.string(), t.integer()]),
  maybe: t.nullable(t.string()),
  nick: t.optional(t.string()),
  meta: t.record(t.integer()),
  pair: t.tuple([t.string(), t.integer()]),
  nested: t.object({ city: t.string(), zip: t.optional(t.string()) }),
  anything: t.unknown(),
});
type Everything = Static<typeof Everything>;
expectType<
  Equal<
    Everything,
    {
      id: number;
      n: number;
      ratio: number;
      flag: boolean;
      tags: string[];
      kind: "user";
      role: "admin" | "user";
      either: string | number;
      maybe: string | null;
      nick?: string;
      meta: Record<string, number>;
      pair: [string, number];
      nested: { city: string; zip?: string };
      anything: unknown;
    }
  >
>();

// Named schemas and refs keep their type.
const Address = t.named("Address", t.object({ city: t.string() }));
const WithRef = t.object({ home: t.ref(Address) });
expectType<Equal<Static<typeof WithRef>, { home: { city: string } }>>();

// Raw JSON Schema is accepted everywhere and is `unknown` statically.
const raw = { type: "object" } as const;
expectType<Equal<Static<typeof raw>, unknown>>();

// Raw JSON Schema inside t.object is accepted and typed unknown.
const Mixed = t.object({ raw: { type: "string" }, rawOptional: t.optional({ type: "integer" }) });
expectType<Equal<Static<typeof Mixed>, { raw: unknown; rawOptional?: unknown }>>();

// compileSchema carries the type into `is`.
const compiled = compileSchema(CreateUser);
const input: unknown = { email: "a@b.co", password: "12345678" };
if (compiled.is(input)) {
  const email: string = input.email;
  void email;
}

function mustNotCompile(): void {
  const user: CreateUser = { email: "a@b.co", password: "x" };
  // @ts-expect-error a string is not a t.integer() field
  const bad: Static<typeof Everything>["n"] = "1";
  // @ts-expect-error a required property cannot be left out
  const missing: CreateUser = { email: "a@b.co" };
  // @ts-expect-error optional properties are not `undefined`-valued (exactOptionalPropertyTypes)
  const undef: Static<typeof Everything>["nested"] = { city: "x", zip: undefined };
  // @ts-expect-error enum values are a closed set
  const role: Everything["role"] = "root";
  // @ts-expect-error nullable does not admit undefined
  const maybe: Everything["maybe"] = undefined;
  void [user, bad, missing, undef, role, maybe];
}

test("type-level tests compile (checked by tsc)", () => {
  assert.equal(typeof mustNotCompile, "function");
  assert.equal(compiled.is(input), true);
});
