// Test support: collectors that misbehave, on loopback. A black hole accepts connections and never
// answers (nor closes); a refusing one is a port nobody listens on; a slow one answers 200, but
// only after a delay longer than the exporter's per-request timeout.
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer, type AddressInfo, type Socket } from "node:net";

export interface BlackHole {
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections still open (the exporter has not let go of them). */
  readonly open: number;
  close(): Promise<void>;
}

export async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    // Read and discard: the request goes in, nothing ever comes back.
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    get open() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A URL on a loopback port that was free a moment ago and is closed now: connecting is refused. */
export async function refusingUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export interface SlowCollector {
  readonly url: string;
  close(): Promise<void>;
}

/** Answers every POST with 200 "{}" after `delayMs`. */
export async function startSlowCollector(delayMs: number): Promise<SlowCollector> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }, delayMs);
      timers.add(t);
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
