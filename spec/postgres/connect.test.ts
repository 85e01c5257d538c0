// Connecting without a real server: a refused port and a server that never answers are 08001
// errors within connectTimeoutMs (never a hang), and a scripted server that fakes SCRAM (a wrong
// server signature, or AuthenticationOk without one) or asks for a cleartext password over plain
// TCP is refused before any statement is sent.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { mapDatabaseError } from "../../lib/db-errors/index.js";
import { connectPostgres, PostgresConnectionError } from "../../lib/postgres/index.js";

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = type.charCodeAt(0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function auth(kind: number, data: Buffer = Buffer.alloc(0)): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(kind, 0);
  return message("R", Buffer.concat([b, data]));
}

type Script = "silent" | "bad-signature" | "skip-signature" | "cleartext";

/** A fake server: reads the startup packet (answering N to an SSLRequest), then plays `script`. */
function scripted(script: Script): { server: Server; sent: string[] } {
  const sent: string[] = [];
  const server = createServer((socket: Socket) => {
    let stage = 0;
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      sent.push(chunk.toString("latin1"));
      if (chunk.length === 8 && chunk.readInt32BE(4) === 80877103) return void socket.write("N");
      if (script === "silent") return;
      if (script === "cleartext") return void socket.write(auth(3));
      if (stage === 0) {
        stage = 1;
        return void socket.write(auth(10, Buffer.from("SCRAM-SHA-256\0\0")));
      }
      if (stage === 1) {
        stage = 2;
        const nonce = /r=([^,\0]+)/.exec(chunk.toString("latin1"))![1]!;
        return void socket.write(auth(11, Buffer.from(`r=${nonce}server,s=${Buffer.from("salt").toString("base64")},i=4096`)));
      }
      if (script === "bad-signature") socket.write(auth(12, Buffer.from("v=" + Buffer.alloc(32, 7).toString("base64"))));
      socket.write(auth(0));
      socket.write(message("Z", Buffer.from("I")));
    });
  });
  return { server, sent };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
}

describe("keel/postgres: connecting", () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.close();
  });

  it("a refused port is a fast 08001 that keel/db-errors maps to 503", async () => {
    const probe = createServer();
    const port = await listen(probe);
    await new Promise<void>((r) => probe.close(() => r()));
    const db = connectPostgres({ port, password: "x" });
    try {
      const err = await db.sql`select 1`.then(() => assert.fail("connected"), (e: unknown) => e);
      assert.ok(err instanceof PostgresConnectionError);
      assert.equal(err.code, "08001");
      assert.equal(mapDatabaseError(err)?.status, 503);
    } finally {
      await db.close();
    }
  });

  for (const [script, pattern] of [
    ["silent", /within 200 ms/],
    ["bad-signature", /server signature is wrong/],
    ["skip-signature", /skipped the SCRAM server signature/],
    ["cleartext", /cleartext password; refused/],
  ] as const) {
    it(`a server that ${script === "silent" ? "never answers" : script} is refused with 08001 before any statement`, async () => {
      const { server, sent } = scripted(script);
      servers.push(server);
      const port = await listen(server);
      const db = connectPostgres({ port, user: "u", password: "secret-pw", connectTimeoutMs: 200 });
      try {
        const err = await db.sql`select 'never sent'`.then(() => assert.fail("connected"), (e: unknown) => e);
        assert.ok(err instanceof PostgresConnectionError, String(err));
        assert.equal(err.code, "08001");
        assert.match(err.message, pattern);
        assert.ok(!sent.some((s) => s.includes("never sent")), "no statement reached the fake server");
        assert.ok(!sent.some((s) => s.includes("secret-pw")), "the password never went out in clear");
      } finally {
        await db.close();
      }
    });
  }
});
