// WebSocket chat traffic (`/api/v1/ws/chat?room=soak`, an HS256 JWT: even readers offer it as
// the `bearer.<token>` subprotocol beside `chat`, odd ones in the Authorization header). Each
// reader says `<tag>:<seq>:<padding>` every SAY_MS and reads every broadcast: each must be
// `{"from":"soak","text":...}`, each sender's messages must come in order without gaps, and its
// own must all come back. The non-reading member (hostile) keeps the room busy (16 KB messages,
// HOSTILE_PER_S a second: about 0.5 MB/s to every member, more than the kernel's socket buffers
// absorb in a --recycle period; it waits for 'drain' when its own socket is full) and never reads; it is
// dropped and replaced every --recycle s. Readers reconnect (clean 1000 close) every
// READER_LIFETIME_MS.
import { openWebSocket } from "./ws-client.mjs";
import { recycling, sleep } from "./recycle.mjs";

const PATH = "/api/v1/ws/chat?room=soak";
const SAY_MS = 250;
const READER_LIFETIME_MS = 60_000;
const OWN_WAIT_MS = 5000;
const HOSTILE_PER_S = 32;
const HOSTILE_PADDING = 16_000;
const TEXT = /^([rh]\d+\.\d+):(\d+):x*$/;

export function startWsChat({ port, signal, token, readers, hostile, recycleMs, tally, hostileTally, address }) {
  const auth = (i) =>
    i % 2 === 0 ? { protocols: ["chat", `bearer.${token}`] } : { protocols: ["chat"], headers: { authorization: `Bearer ${token}` } };
  let connections = 0;

  async function reader(i) {
    while (!signal.aborted) {
      let ws;
      try {
        ws = await openWebSocket({ port, path: PATH, localAddress: address(i), ...auth(i) });
      } catch (err) {
        tally.fail(`connect: ${err.message}`);
        await sleep(1000, signal);
        continue;
      }
      tally.count("connections");
      if (ws.protocol !== "chat") tally.fail(`subprotocol ${ws.protocol ?? "none"} selected`);
      const tag = `r${i}.${connections++}`;
      let said = 0;
      let heard = 0; // own messages back
      const last = new Map(); // sender tag -> last seq seen (one entry per sender met on this connection)
      let ownDone = null;
      ws.on("message", (data, isBinary) => {
        tally.count("received");
        let m;
        try {
          m = isBinary ? null : JSON.parse(data.toString());
        } catch {
          m = null;
        }
        const parts = m !== null && m.from === "soak" && typeof m.text === "string" ? TEXT.exec(m.text) : null;
        if (parts === null) return tally.fail(`malformed broadcast: ${data.subarray(0, 80).toString()}`);
        const seq = Number(parts[2]);
        const prev = last.get(parts[1]);
        if (prev !== undefined && seq !== prev + 1) tally.fail(`${parts[1]}: message ${seq} after ${prev}`);
        last.set(parts[1], seq);
        if (parts[1] === tag) {
          heard++;
          if (heard === said) ownDone?.();
        }
      });
      ws.on("close", (info) => {
        if (info.byServer) tally.fail(`closed by the server: ${info.code} ${info.reason}${info.error ? ` (${info.error.code ?? info.error.message})` : ""}`);
        ownDone?.();
      });
      const until = Date.now() + READER_LIFETIME_MS;
      while (!signal.aborted && !ws.closed && Date.now() < until) {
        ws.send(`${tag}:${said}:${"x".repeat(Math.floor(Math.random() * 2000))}`, false);
        said++;
        tally.count("said");
        await sleep(SAY_MS, signal);
      }
      if (ws.closed) continue;
      if (heard < said) {
        let timer;
        await new Promise((resolve) => {
          ownDone = resolve;
          timer = setTimeout(resolve, OWN_WAIT_MS);
        });
        clearTimeout(timer);
      }
      if (heard < said && !ws.closed) tally.fail(`${said - heard} of its own ${said} messages never came back`);
      if (ws.closed) continue;
      await ws.close(1000);
      if (!ws.byServer && ws.closeCode !== 1000) tally.fail(`close answered ${ws.closeCode ?? "nothing"}`);
      else tally.count("clean_closes");
    }
  }

  function openHostile(i) {
    return openWebSocket({ port, path: PATH, localAddress: address(100 + i), read: false, ...auth(i) }).then((ws) => {
      hostileTally.count("connections");
      const tag = `h${i}.${connections++}`;
      const padding = "x".repeat(HOSTILE_PADDING);
      let seq = 0;
      let blocked = false;
      let recycled = false;
      ws.on("close", (info) => {
        if (!recycled) hostileTally.count(`ended_by_server_${info.code}`);
      });
      const pump = setInterval(() => {
        if (blocked || ws.closed) return;
        hostileTally.count("said");
        if (!ws.send(`${tag}:${seq++}:${padding}`, false)) {
          blocked = true;
          hostileTally.count("write_blocked");
          ws.socket.once("drain", () => (blocked = false));
        }
      }, 1000 / HOSTILE_PER_S);
      return {
        close() {
          recycled = true;
          clearInterval(pump);
          if (!ws.closed) hostileTally.count(blocked ? "recycled_while_blocked" : "recycled_while_flowing");
          ws.destroy();
        },
      };
    });
  }

  const loops = [];
  for (let i = 0; i < readers; i++) loops.push(reader(i));
  if (hostile > 0) loops.push(recycling({ slots: hostile, periodMs: recycleMs, signal, open: openHostile, onOpenError: (err) => hostileTally.count(`connect_failed_${err.code ?? err.message}`) }));
  return Promise.all(loops);
}
