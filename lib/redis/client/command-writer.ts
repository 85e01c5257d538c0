// The commands issued on a connection but not yet handed to its socket. Commands of a burst (say,
// one per HTTP request handled in one turn of the event loop) are staged back to back and the
// connection sends them with a single socket write: one syscall (and one wake-up of Redis) per
// burst instead of one per command.
//
// Commands whose arguments are strings and numbers (nearly all) are staged as RESP text: V8 joins
// the pieces cheaply and the socket encodes the whole burst in one native call, with no Buffer
// allocated or copied per command. A command with a Buffer argument is encoded into a Buffer of
// its own (resp-encoder.ts) and staged after the text before it, so the order is kept.
import type { Socket } from "node:net";
import { encodeCommand } from "./resp-encoder.js";
import { evalshaCommand, type RedisScript } from "./script.js";
import type { RedisArg } from "./types.js";

/** A burst this big (in UTF-16 units or bytes) is sent at once rather than at the end of the turn. */
export const FLUSH_SIZE = 64 * 1024;

/** Strings up to this length are checked for ASCII in JS; longer ones are measured natively. */
const SHORT_STRING = 32;

/** UTF-8 byte length of `s` (for a short ASCII string, its length, without a native call). */
function utf8Length(s: string): number {
  const n = s.length;
  if (n > SHORT_STRING) return Buffer.byteLength(s, "utf8");
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, "utf8");
  return n;
}

function numberText(n: number): string {
  if (Number.isFinite(n)) return String(n);
  if (n === Infinity) return "+inf";
  if (n === -Infinity) return "-inf";
  throw new TypeError("Redis command arguments cannot be NaN");
}

/** Throws the TypeError for an argument that is neither a string, a number nor a Buffer. */
function checkArgument(arg: unknown, i: number): void {
  if (typeof arg === "string" || typeof arg === "number" || Buffer.isBuffer(arg)) return;
  throw new TypeError(`Redis command argument ${i} is ${arg === null ? "null" : typeof arg}: expected a string, number or Buffer`);
}

export class CommandWriter {
  /** Staged RESP text after the last Buffer chunk. */
  private text = "";
  /** `text` is all ASCII (sent as latin1, a plain copy, rather than encoded as UTF-8). */
  private ascii = true;
  /** Staged before `text`: earlier text and Buffer-encoded commands, in order (rarely used). */
  private chunks: (string | Buffer)[] = [];
  /** About how much is staged (UTF-16 units of text plus Buffer bytes): only compared with FLUSH_SIZE. */
  size = 0;

  /** Stages `args` after the commands staged. Throws TypeError for a bad argument (nothing staged then). */
  append(args: readonly RedisArg[]): void {
    const count = args.length;
    if (count === 0) throw new TypeError("A Redis command needs at least its name");
    this.bulkAscii = true;
    const command = this.withBulks("*" + count + "\r\n", args);
    if (command === null) {
      // A Buffer (or a bad) argument: checked, then encoded as bytes.
      for (let j = 0; j < count; j++) checkArgument(args[j], j);
      this.appendBinary(encodeCommand(args));
      return;
    }
    this.stage(command);
  }

  /** Stages EVALSHA with the script's pre-encoded prefix (no argument list is built). Throws TypeError for a bad argument. */
  appendScript(script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): void {
    const keyCount = String(keys.length);
    this.bulkAscii = true;
    const head = "*" + (3 + keys.length + args.length) + "\r\n" + script.evalshaPrefix + "$" + keyCount.length + "\r\n" + keyCount + "\r\n";
    const withKeys = this.withBulks(head, keys);
    const command = withKeys === null ? null : this.withBulks(withKeys, args);
    // A Buffer (or a bad) argument: the general path, which checks and encodes it.
    if (command === null) this.append(evalshaCommand(script, keys, args));
    else this.stage(command);
  }

  /** Cleared before `withBulks`, false after when one of its arguments was not ASCII. */
  private bulkAscii = true;

  /** `command` followed by each argument as a RESP bulk string; null when one is neither a string nor a number. */
  private withBulks(command: string, args: readonly RedisArg[]): string | null {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      let text: string;
      if (typeof arg === "string") text = arg;
      else if (typeof arg === "number") text = numberText(arg);
      else return null;
      const bytes = utf8Length(text);
      if (bytes !== text.length) this.bulkAscii = false;
      command += "$" + bytes + "\r\n" + text + "\r\n";
    }
    return command;
  }

  private stage(command: string): void {
    this.text += command;
    if (!this.bulkAscii) this.ascii = false;
    this.size += command.length;
  }

  private appendBinary(encoded: Buffer): void {
    if (this.text !== "") {
      this.chunks.push(this.text); // written as UTF-8: the same bytes when it is ASCII
      this.text = "";
      this.ascii = true;
    }
    this.chunks.push(encoded);
    this.size += encoded.length;
  }

  /** Writes everything staged to `socket` (one write, or one corked burst with Buffers) and empties the writer. */
  writeTo(socket: Socket): void {
    const text = this.text;
    const chunks = this.chunks;
    this.size = 0;
    this.text = "";
    if (chunks.length === 0) {
      if (text !== "") socket.write(text, this.ascii ? "latin1" : "utf8");
      this.ascii = true;
      return;
    }
    this.chunks = [];
    socket.cork();
    for (const chunk of chunks) {
      if (typeof chunk === "string") socket.write(chunk, "utf8");
      else socket.write(chunk);
    }
    if (text !== "") socket.write(text, this.ascii ? "latin1" : "utf8");
    this.ascii = true;
    socket.uncork();
  }

  /** Drops what is staged (the connection is gone). */
  clear(): void {
    this.text = "";
    this.ascii = true;
    this.chunks = [];
    this.size = 0;
  }
}
