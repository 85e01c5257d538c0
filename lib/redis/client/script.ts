// Lua scripts by SHA1: EVALSHA first; on NOSCRIPT (a restarted or flushed server) the source is
// loaded with SCRIPT LOAD and the call retried once (the client and its connections do the
// calling: a reply of NOSCRIPT is caught where replies are matched, so a script call costs no
// promise beyond the caller's).
import { createHash } from "node:crypto";
import type { RedisArg, RedisReply } from "./types.js";

export class RedisScript {
  readonly source: string;
  /** Hex SHA1 of the source, the name Redis knows the script by. */
  readonly sha: string;
  /** "EVALSHA <sha>" as RESP bulk strings, encoded once: every call starts with it. */
  readonly evalshaPrefix: string;

  constructor(source: string) {
    this.source = source;
    this.sha = createHash("sha1").update(source, "utf8").digest("hex");
    this.evalshaPrefix = `$7\r\nEVALSHA\r\n$${this.sha.length}\r\n${this.sha}\r\n`;
  }
}

/** EVALSHA sha numkeys keys... args... as one argument list. */
export function evalshaCommand(script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): RedisArg[] {
  const command: RedisArg[] = new Array<RedisArg>(3 + keys.length + args.length);
  command[0] = "EVALSHA";
  command[1] = script.sha;
  command[2] = keys.length;
  let at = 3;
  for (let i = 0; i < keys.length; i++) command[at++] = keys[i] as string;
  for (let i = 0; i < args.length; i++) command[at++] = args[i] as RedisArg;
  return command;
}

type Send = (args: readonly RedisArg[]) => Promise<RedisReply>;

/** The NOSCRIPT fallback: SCRIPT LOAD, then the EVALSHA again (a second NOSCRIPT rejects). */
export function loadAndRun(send: Send, script: RedisScript, command: readonly RedisArg[]): Promise<RedisReply> {
  return send(["SCRIPT", "LOAD", script.source]).then(() => send(command));
}
