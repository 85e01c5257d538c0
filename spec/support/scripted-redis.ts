// A loopback TCP server speaking RESP from a script, for the replies a real redis-server cannot be
// made to send (a hostile or broken server: a 512 MiB bulk, a 2^30-element array, an endless
// line, a reply out of step, -LOADING on a ready connection). Commands are read with keel's own
// parser (clients send arrays of bulk strings); the test's handler answers each with raw bytes.
// Large answers are written with backpressure from one reused chunk, so this server itself holds
// no more than a chunk or two, whatever it announces: memory measured in the test process is the
// client's.
import { createServer, type Server, type Socket } from "node:net";
import { RespParser } from "../../lib/redis/index.js";

export interface ScriptedConnection {
  /** 1 for the first connection accepted, 2 for the next... */
  readonly number: number;
  readonly socket: Socket;
  /** Writes `bytes`; resolves when the socket has taken them (after a drain if needed); false once the socket is gone. */
  write(bytes: string | Buffer): Promise<boolean>;
  /** Writes `chunk` again and again until `total` bytes went out or the peer closed; the bytes written. */
  trickle(chunk: Buffer, total: number): Promise<number>;
}

/** Answers one command (its arguments as strings). The handshake's PING comes here too. */
export type ScriptHandler = (command: string[], connection: ScriptedConnection) => void | Promise<void>;

export interface ScriptedRedis {
  readonly port: number;
  readonly url: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

/** The usual answers: +PONG to PING, +OK to CLIENT/SELECT/AUTH/QUIT. Undefined for anything else. */
export function defaultAnswer(command: string[]): string | undefined {
  const name = (command[0] ?? "").toUpperCase();
  if (name === "PING") return "+PONG\r\n";
  if (name === "CLIENT" || name === "SELECT" || name === "AUTH" || name === "QUIT") return "+OK\r\n";
  return undefined;
}

export async function startScriptedRedis(handler: ScriptHandler): Promise<ScriptedRedis> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    const number = ++accepted;
    sockets.add(socket);
    let gone = false;
    socket.on("close", () => {
      gone = true;
      sockets.delete(socket);
    });
    socket.on("error", () => undefined);
    const write = (bytes: string | Buffer): Promise<boolean> => {
      if (gone || socket.destroyed) return Promise.resolve(false);
      if (socket.write(bytes)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean): void => {
          socket.off("drain", onDrain);
          socket.off("close", onClose);
          resolve(ok);
        };
        const onDrain = (): void => done(true);
        const onClose = (): void => done(false);
        socket.on("drain", onDrain);
        socket.on("close", onClose);
      });
    };
    const connection: ScriptedConnection = {
      number,
      socket,
      write,
      async trickle(chunk, total) {
        let sent = 0;
        while (sent < total && (await write(chunk))) sent += chunk.length;
        return sent;
      },
    };
    // Commands are handled one at a time, in order, as Redis does.
    let queue: Promise<void> = Promise.resolve();
    const parser = new RespParser((value) => {
      const command = Array.isArray(value) ? value.map((v) => String(v)) : [String(value)];
      queue = queue.then(() => handler(command, connection)).catch(() => void socket.destroy());
    });
    socket.on("data", (chunk: Buffer) => {
      try {
        parser.feed(chunk);
      } catch {
        socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
