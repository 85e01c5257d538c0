// Server-sent events (`/api/v1/events`). Readers open `?max=STREAM_TICKS` streams and read them
// to the end, then reconnect with Last-Event-ID: every `tick` must carry `id` = `data.n`, one
// more than the one before (across reconnects too), `job` events must be well formed, and a
// stream must not end before its STREAM_TICKS ticks. Non-readers (hostile) open a stream without
// `max`, take the 200 and never read the body; they are dropped and replaced every --recycle s.
import { request } from "node:http";
import { recycling, sleep } from "./recycle.mjs";

const STREAM_TICKS = 20;
/** An event longer than this (the sample's are ~100 bytes) is a broken stream, not a slow one. */
const MAX_PENDING = 64 * 1024;

/** Parses text/event-stream chunks into events ({ event, id, data }) and counts comments. */
class EventParser {
  pending = "";
  fields = { event: "message", id: undefined, data: [] };

  constructor(onEvent, onComment) {
    this.onEvent = onEvent;
    this.onComment = onComment;
  }

  push(text) {
    this.pending += text;
    let nl;
    while ((nl = this.pending.indexOf("\n")) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, "");
      this.pending = this.pending.slice(nl + 1);
      this.#line(line);
    }
    if (this.pending.length > MAX_PENDING) throw new Error(`an unterminated line of ${this.pending.length} chars`);
  }

  #line(line) {
    if (line === "") {
      if (this.fields.data.length > 0) this.onEvent({ event: this.fields.event, id: this.fields.id, data: this.fields.data.join("\n") });
      this.fields = { event: "message", id: undefined, data: [] };
      return;
    }
    if (line.startsWith(":")) return this.onComment();
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (name === "event") this.fields.event = value;
    else if (name === "id") this.fields.id = value;
    else if (name === "data") this.fields.data.push(value);
  }
}

export function startSse({ port, signal, readers, hostile, recycleMs, tally, hostileTally, address }) {
  async function reader(i) {
    let lastId;
    let lastN;
    while (!signal.aborted) {
      let ticks = 0;
      const ended = await new Promise((resolve) => {
        const req = request({
          host: "127.0.0.1", port, path: `/api/v1/events?max=${STREAM_TICKS}`, localAddress: address(i), agent: false,
          headers: { accept: "text/event-stream", ...(lastId === undefined ? {} : { "last-event-id": lastId }) },
        });
        const stop = () => req.destroy();
        signal.addEventListener("abort", stop, { once: true });
        const finish = (outcome) => {
          signal.removeEventListener("abort", stop);
          resolve(outcome);
        };
        req.on("error", (err) => finish(signal.aborted ? "stopped" : `error ${err.code ?? err.message}`));
        req.on("response", (res) => {
          tally.count("streams");
          if (res.statusCode !== 200 || !String(res.headers["content-type"]).startsWith("text/event-stream")) {
            res.resume();
            return finish(`answered ${res.statusCode} ${res.headers["content-type"]}`);
          }
          const parser = new EventParser(
            (e) => {
              let data;
              try {
                data = JSON.parse(e.data);
              } catch {
                return tally.fail(`${e.event} event with data ${e.data.slice(0, 60)}`);
              }
              if (e.event === "tick") {
                ticks++;
                tally.count("ticks");
                if (e.id !== String(data.n)) tally.fail(`tick id ${e.id} with n ${data.n}`);
                if (lastN !== undefined && data.n !== lastN + 1) tally.fail(`tick ${data.n} after ${lastN}`);
                lastN = data.n;
                lastId = e.id;
              } else if (e.event === "job") {
                tally.count("job_events");
                if (typeof data.id !== "string" || typeof data.state !== "string") tally.fail(`job event ${e.data.slice(0, 60)}`);
              } else tally.fail(`unknown event ${e.event}`);
            },
            () => tally.count("keep_alives"),
          );
          res.setEncoding("utf8");
          res.on("data", (text) => {
            try {
              parser.push(text);
            } catch (err) {
              tally.fail(err.message);
              req.destroy();
            }
          });
          res.on("end", () => finish(ticks === STREAM_TICKS ? "complete" : `ended after ${ticks} of ${STREAM_TICKS} ticks`));
          res.on("error", () => undefined);
          res.on("aborted", () => finish(signal.aborted ? "stopped" : "aborted"));
        });
        req.end();
      });
      if (ended === "complete") tally.count("streams_complete");
      else if (ended !== "stopped" && !signal.aborted) {
        tally.fail(`stream ${ended}`);
        await sleep(1000, signal);
      }
    }
  }

  function openHostile(i) {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/api/v1/events", localAddress: address(100 + i), agent: false, headers: { accept: "text/event-stream" } });
      let recycled = false;
      req.on("error", (err) => {
        if (!recycled) hostileTally.count(`ended_by_server_${err.code ?? "error"}`);
        reject(err);
      });
      req.on("response", (res) => {
        res.pause(); // never read: the client's parser stops reading the socket once res is full
        hostileTally.count(`status_${res.statusCode}`);
        res.socket.on("close", () => {
          if (!recycled) hostileTally.count("ended_by_server");
        });
        resolve({
          close() {
            recycled = true;
            hostileTally.count("recycled");
            req.destroy();
          },
        });
      });
      req.end();
    });
  }

  const loops = [];
  for (let i = 0; i < readers; i++) loops.push(reader(i));
  if (hostile > 0) loops.push(recycling({ slots: hostile, periodMs: recycleMs, signal, open: openHostile, onOpenError: (err) => hostileTally.count(`connect_failed_${err.code ?? err.message}`) }));
  return Promise.all(loops);
}
