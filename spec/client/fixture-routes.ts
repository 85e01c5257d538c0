// Routes the client tests call: every request part (path, query, header, JSON, text, form bodies),
// a wildcard and a colon parameter, 201/204/404 declared, and one route without declared responses.
import { created, form, header, json, noContent, path, query, route, t, text } from "../../lib/index.js";

const Item = t.object({ id: t.integer(), name: t.string(), tags: t.array(t.string()) });

export const fixtureRoutes = [
  route.get(
    "/items/{id}",
    { responses: { 200: Item, 404: "No such item" } },
    [path("id", t.integer()), query(t.object({ verbose: t.optional(t.boolean()), tag: t.optional(t.array(t.string())) }))],
    (id, q) => ({ id, name: `item ${id}${q.verbose === true ? " (verbose)" : ""}`, tags: q.tag ?? [] }),
  ),
  route.post("/items", { responses: { 201: Item } }, [header("x-tenant"), json(t.object({ name: t.string() }))], (tenant, b) =>
    created({ id: 7, name: `${tenant}:${b.name}`, tags: [] }),
  ),
  route.post("/notes", { responses: { 200: t.object({ got: t.string() }) } }, [text()], (s) => ({ got: s })),
  route.post("/forms", { responses: { 200: t.object({ a: t.string(), b: t.array(t.string()) }) } }, [form(t.object({ a: t.string(), b: t.array(t.string()) }))], (f) => f),
  route.delete("/items/{id}", { responses: { 204: "Deleted" } }, [path("id", t.integer())], () => noContent()),
  route.get("/files/{*rest}", { responses: { 200: t.object({ rest: t.string() }) } }, [path("rest")], (rest) => ({ rest })),
  route.get("/free/:name", [path("name")], (name) => `hi ${name}`),
] as const;
