// Type-level tests of response contracts: a route's declared responses type what its handler may
// return. Checked by `tsc` in `npm test`; each `@ts-expect-error` line must fail to compile.
import assert from "node:assert/strict";
import { it } from "node:test";
import { accepted, created, noContent, path, redirect, reply, route, t, textReply, type HandlerResult, type ResponseBody } from "../../lib/index.js";

const User = t.object({ id: t.u64(), email: t.string() });
type UserT = { id: number; email: string };
const user: UserT = { id: 1, email: "a@example.com" };
const userRow = { ...user, passwordHash: "x" };

export const typed = [
  // The 200 body as a plain value; a wider value (a database row) is fine: the serializer drops extras.
  route.get("/u/{id}", { responses: { 200: User, 404: "Not found" } }, [path("id", t.u64())], (id) => (id === 1 ? userRow : user)),
  route.get("/async", { responses: { 200: User } }, [], async () => user),

  // @ts-expect-error a property of the wrong type
  route.get("/wrong", { responses: { 200: User } }, [], () => ({ id: "1", email: "a" })),

  // @ts-expect-error a required property is missing
  route.get("/missing", { responses: { 200: User } }, [], () => ({ id: 1 })),

  // created() needs a declared 201 whose schema the body fits.
  route.post("/made", { responses: { 201: User } }, [], () => created(user)),
  // @ts-expect-error 201 is not declared
  route.post("/undeclared", { responses: { 200: User } }, [], () => created(user)),
  // @ts-expect-error the 201 body does not fit
  route.post("/bad-body", { responses: { 201: User } }, [], () => created({ id: 1 })),

  route.post("/later", { responses: { 202: User } }, [], () => accepted(user)),

  // A declared 204: nothing, or noContent().
  route.delete("/gone", { responses: { 204: "Deleted" } }, [], () => noContent()),
  route.delete("/gone2", { responses: { 204: "Deleted" } }, [], () => undefined),
  // @ts-expect-error returning nothing needs a declared 204
  route.delete("/nothing", { responses: { 200: User } }, [], () => undefined),

  // Error statuses carry the uniform error body; reply() with a declared status is checked.
  route.get("/teapot", { responses: { 200: User, 418: "A teapot" } }, [], () =>
    reply(418, { error: { type: "teapot", message: "short and stout" }, error_id: "err_1" }),
  ),
  // @ts-expect-error 418 is not declared
  route.get("/teapot2", { responses: { 200: User } }, [], () => reply(418, { error: { type: "t", message: "m" }, error_id: "e" })),

  route.get("/go", { responses: { 302: "Elsewhere" } }, [], () => redirect("/there")),
  route.get("/hello", { responses: { 200: t.string() } }, [], () => "hi"),
  // @ts-expect-error a number where a string is declared
  route.get("/hello2", { responses: { 200: t.string() } }, [], () => 42),
  route.get("/txt", { responses: { 200: { description: "Plain text", schema: t.string(), contentType: "text/plain" } } }, [], () => textReply("hi")),

  // Without declared responses, anything goes (as before).
  route.get("/free", [], () => ({ anything: true })),
  route.get("/free2", { summary: "meta without responses" }, [], () => created({ anything: true })),
];

type Body404 = ResponseBody<"Not found", 404>;
const errorBody: Body404 = { error: { type: "not_found", message: "m" }, error_id: "e" };
type Result = HandlerResult<{ 200: typeof User; 204: "Deleted" }>;
const asValue: Result = user;
const asNothing: Result = undefined;
// @ts-expect-error a string is neither the 200 body nor a Reply
const asString: Result = "x";

it("declared responses type handler results (checked by tsc)", () => {
  assert.equal(typed.length, 19);
  assert.ok(errorBody && asValue && asNothing === undefined && asString);
});
