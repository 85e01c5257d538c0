// The staging of commands (command-writer.ts): what reaches the socket is byte for byte the RESP
// encoding of each command, in order, whatever mix of text, non-ASCII text, numbers, Buffers and
// pre-encoded EVALSHA calls was staged; a bad argument stages nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { CommandWriter } from "../../../lib/redis/client/command-writer.js";
import { encodeCommand } from "../../../lib/redis/client/resp-encoder.js";
import { RedisScript, evalshaCommand } from "../../../lib/redis/client/script.js";
import type { RedisArg } from "../../../lib/redis/client/types.js";

/** Collects what a socket would be given, as bytes, with the encoding each write asked for. */
function sink(): { socket: Socket; bytes: () => Buffer; writes: () => number } {
  const parts: Buffer[] = [];
  let corked = 0;
  let writes = 0;
  const socket = {
    cork: () => void corked++,
    uncork: () => {
      corked--;
      writes++;
    },
    write(chunk: string | Buffer, encoding?: BufferEncoding) {
      if (corked === 0) writes++;
      parts.push(typeof chunk === "string" ? Buffer.from(chunk, encoding ?? "utf8") : chunk);
      return true;
    },
  } as unknown as Socket;
  return { socket, bytes: () => Buffer.concat(parts), writes: () => writes };
}

test("a burst of commands is written at once, byte for byte their RESP encoding, in order", () => {
  const script = new RedisScript("return ARGV[1]");
  const commands: RedisArg[][] = [
    ["SET", "clé", "value with \r\n inside"],
    ["GET", "\u{1F600}", 42, -1.5, Infinity, -Infinity],
    ["SET", "bin", Buffer.from([0, 13, 10, 255])],
    ["ECHO", "x".repeat(100) + "é"],
    ["PING"],
  ];
  const writer = new CommandWriter();
  const { socket, bytes, writes } = sink();
  for (const c of commands) writer.append(c);
  writer.appendScript(script, ["k1", "ключ"], [1e9, "60000"]);
  writer.appendScript(script, ["k"], [Buffer.from([1, 2, 3])]);
  writer.writeTo(socket);
  const expected = Buffer.concat([
    ...commands.map((c) => encodeCommand(c)),
    encodeCommand(evalshaCommand(script, ["k1", "ключ"], [1e9, "60000"])),
    encodeCommand(evalshaCommand(script, ["k"], [Buffer.from([1, 2, 3])])),
  ]);
  assert.deepEqual(bytes(), expected);
  assert.equal(writes(), 1, "one write (one corked burst with Buffers)");
  assert.equal(writer.size, 0);

  // Text only: a single plain write.
  const only = sink();
  writer.append(["GET", "a"]);
  writer.appendScript(script, [], []);
  writer.writeTo(only.socket);
  assert.deepEqual(only.bytes(), Buffer.concat([encodeCommand(["GET", "a"]), encodeCommand(evalshaCommand(script, [], []))]));
  assert.equal(only.writes(), 1);
});

test("a bad argument throws TypeError and stages nothing; clear() drops what is staged", () => {
  const script = new RedisScript("return 1");
  const writer = new CommandWriter();
  writer.append(["PING"]);
  assert.throws(() => writer.append(["SET", "k", null as never]), TypeError);
  assert.throws(() => writer.append(["SET", Buffer.from("k"), {} as never]), TypeError);
  assert.throws(() => writer.append([]), TypeError);
  assert.throws(() => writer.append(["GET", NaN]), TypeError);
  assert.throws(() => writer.appendScript(script, ["k"], [undefined as never]), TypeError);
  const { socket, bytes } = sink();
  writer.writeTo(socket);
  assert.deepEqual(bytes(), encodeCommand(["PING"]));
  writer.append(["GET", "gone"]);
  writer.clear();
  const after = sink();
  writer.writeTo(after.socket);
  assert.equal(after.bytes().length, 0);
});
