// gRPC traffic to users.v1.Users on the sample's gRPC port, over one HTTP/2 connection (a new one
// when it closes, which is itself unexpected before the end). Unary GetUser at --grpc-rate a
// second: a seeded id (1-12) must answer OK with that user, an id that does not exist
// NOT_FOUND (5), id 0 INVALID_ARGUMENT (3). ListUsers streams once every LIST_EVERY_MS with a
// random page size and is read to the end: ids ascending from 1, the twelve seeded users first,
// grpc-status OK. Non-readers (hostile) open ListUsers on a connection of their own whose
// stream window is HOSTILE_WINDOW bytes (so even a small user table fills it), never consume it,
// and are cancelled and replaced every --recycle s.
import { constants } from "node:http2";
import { decodeUser, getUserRequest, grpcCall, grpcSession, listUsersRequest } from "./grpc-client.mjs";
import { paced } from "./pace.mjs";
import { recycling, sleep } from "./recycle.mjs";

const GET_USER = "/users.v1.Users/GetUser";
const LIST_USERS = "/users.v1.Users/ListUsers";
const SEED = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj"];
const LIST_EVERY_MS = 1000;
const MAX_IN_FLIGHT = 32;
const HOSTILE_WINDOW = 1024;

export function startGrpc({ url, signal, rate, hostile, recycleMs, tally, hostileTally }) {
  let session = null;
  let inFlight = 0;
  const sessionFor = () => {
    if (session === null || session.closed || session.destroyed) {
      tally.count("connections");
      const s = grpcSession(url);
      s.on("close", () => {
        if (!signal.aborted) tally.fail("the connection closed");
      });
      session = s;
    }
    return session;
  };

  async function getUser() {
    const r = Math.random();
    const id = r < 0.8 ? 1 + Math.floor(Math.random() * SEED.length) : r < 0.95 ? 1_000_000_000 + Math.floor(Math.random() * 1000) : 0;
    const want = id === 0 ? 3 : id > SEED.length ? 5 : 0;
    const users = [];
    const started = process.hrtime.bigint();
    inFlight++;
    const res = await grpcCall(sessionFor(), GET_USER, getUserRequest(id), (m) => users.push(m));
    inFlight--;
    tally.latency(Number(process.hrtime.bigint() - started) / 1e6);
    tally.count(`get_user_status_${res.status ?? "none"}`);
    if (res.error !== undefined) return tally.fail(`GetUser ${id}: ${res.error.code ?? res.error.message}`);
    if (res.httpStatus !== 200 || res.status !== want) return tally.fail(`GetUser ${id}: HTTP ${res.httpStatus} grpc-status ${res.status} (${res.message}), expected ${want}`);
    if (want !== 0) {
      if (users.length !== 0) tally.fail(`GetUser ${id}: ${users.length} messages with status ${want}`);
      return;
    }
    let user;
    try {
      user = users.length === 1 ? decodeUser(users[0]) : null;
    } catch (err) {
      return tally.fail(`GetUser ${id}: ${err.message}`);
    }
    if (user === null || user.id !== id || user.email !== `${SEED[id - 1]}@example.com`) tally.fail(`GetUser ${id}: ${users.length} messages, ${JSON.stringify(user)}`);
  }

  async function listUsers() {
    const pageSize = 1 + Math.floor(Math.random() * 100);
    let count = 0;
    let lastId = 0;
    let wrong = null;
    const res = await grpcCall(sessionFor(), LIST_USERS, listUsersRequest(pageSize), (m) => {
      count++;
      let u;
      try {
        u = decodeUser(m);
      } catch (err) {
        wrong ??= err.message;
        return;
      }
      if (u.id <= lastId || (count <= SEED.length && (u.id !== count || u.email !== `${SEED[count - 1]}@example.com`))) wrong ??= `user ${JSON.stringify(u)} as message ${count}`;
      lastId = u.id;
    }, 30_000);
    tally.count(`list_users_status_${res.status ?? "none"}`);
    tally.count("streamed_users", count);
    if (res.error !== undefined) tally.fail(`ListUsers: ${res.error.code ?? res.error.message}`);
    else if (res.httpStatus !== 200 || res.status !== 0) tally.fail(`ListUsers: HTTP ${res.httpStatus} grpc-status ${res.status} (${res.message})`);
    else if (wrong !== null) tally.fail(`ListUsers (page ${pageSize}): ${wrong}`);
    else if (count < SEED.length) tally.fail(`ListUsers: ${count} users`);
  }

  async function unaryLoop() {
    await paced({ rate, signal, fire: () => (inFlight >= MAX_IN_FLIGHT ? tally.count("skipped_busy") : void getUser()) });
    while (inFlight > 0) await sleep(20);
  }

  async function streamLoop() {
    while (!signal.aborted) {
      await listUsers();
      await sleep(LIST_EVERY_MS, signal);
    }
  }

  function openHostile() {
    return new Promise((resolve, reject) => {
      const s = grpcSession(url, { initialWindowSize: HOSTILE_WINDOW });
      s.once("connect", () => {
        hostileTally.count("connections");
        let recycled = false;
        const stream = s.request({ ":method": "POST", ":path": LIST_USERS, "content-type": "application/grpc", te: "trailers" });
        stream.pause(); // never consumed: no WINDOW_UPDATE for this stream
        stream.on("response", (h) => hostileTally.count(`response_${h[":status"]}${h["grpc-status"] === undefined ? "" : `_grpc_${h["grpc-status"]}`}`));
        stream.on("error", () => undefined);
        stream.on("close", () => {
          if (!recycled) hostileTally.count(`ended_by_server_rst_${stream.rstCode}`);
        });
        stream.end(Buffer.from([0, 0, 0, 0, 0])); // ListUsersRequest {} (page size 20, from the start)
        resolve({
          close() {
            recycled = true;
            hostileTally.count("recycled");
            if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
            s.destroy();
          },
        });
      });
      s.once("error", reject);
    });
  }

  const loops = [unaryLoop(), streamLoop()];
  if (hostile > 0) loops.push(recycling({ slots: hostile, periodMs: recycleMs, signal, open: openHostile, onOpenError: (err) => hostileTally.count(`connect_failed_${err.code ?? err.message}`) }));
  return Promise.all(loops).then(() => session?.close());
}
