// CRUD over an in-memory map, each route with a response contract: the handler may only return
// what `responses` declares (checked by tsc), and only the declared properties are sent.
// Run: PORT=3000 npx tsx crud.ts, then
//   curl -XPOST localhost:3000/notes -H 'content-type: application/json' -d '{"text":"hi"}'
import { App, ApiError, created, json, noContent, path, raise, route, t } from "keel";

const Note = t.object({ id: t.u32(), text: t.string(), done: t.boolean() });
const NoteInput = t.object({ text: t.string({ length: { min: 1, max: 500 } }), done: t.optional(t.boolean()) });
const noteId = path("id", t.u32());

// What we store has more than what we show: `editedBy` is never sent, since Note leaves it out.
const notes = new Map<number, { id: number; text: string; done: boolean; editedBy: string }>();
let nextId = 1;
const find = (id: number) => notes.get(id) ?? raise(ApiError.notFound(`note ${id} not found`));

const app = new App().routes(
  route.get("/notes", { responses: { 200: t.array(Note) } }, [], () => [...notes.values()]),
  route.get("/notes/{id}", { responses: { 200: Note, 404: "No note has this id" } }, [noteId], find),
  route.post("/notes", { responses: { 201: Note } }, [json(NoteInput)], (body) => {
    const note = { id: nextId++, text: body.text, done: body.done ?? false, editedBy: "api" };
    notes.set(note.id, note);
    return created(note, { location: `/notes/${note.id}` });
  }),
  route.put("/notes/{id}", { responses: { 200: Note, 404: "No note has this id" } }, [noteId, json(NoteInput)], (id, body) => {
    const note = find(id);
    note.text = body.text;
    note.done = body.done ?? note.done;
    return note;
  }),
  route.delete("/notes/{id}", { responses: { 204: "Deleted", 404: "No note has this id" } }, [noteId], (id) => {
    if (!notes.delete(id)) throw ApiError.notFound(`note ${id} not found`);
    return noContent();
  }),
);

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
