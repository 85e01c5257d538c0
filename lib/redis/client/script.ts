// Lua scripts by SHA1: EVALSHA first; on NOSCRIPT (a restarted or flushed server) the source is
// loaded with SCRIPT LOAD and the call retried once.
import { createHash } from "node:crypto";
import { RedisError } from "./errors.js";
import type { RedisArg, RedisReply } from "./types.js";

export class RedisScript {
  readonly source: string;
  /** Hex SHA1 of the source, the name Redis knows the script by. */
  readonly sha: string;

  constructor(source: string) {
    this.source = source;
    this.sha = createHash("sha1").update(source, "utf8").digest("hex");
  }
}

type Send = (args: readonly RedisArg[]) => Promise<RedisReply>;

export function runScript(send: Send, script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): Promise<RedisReply> {
  const command: RedisArg[] = new Array<RedisArg>(3 + keys.length + args.length);
  command[0] = "EVALSHA";
  command[1] = script.sha;
  command[2] = keys.length;
  let at = 3;
  for (let i = 0; i < keys.length; i++) command[at++] = keys[i] as string;
  for (let i = 0; i < args.length; i++) command[at++] = args[i] as RedisArg;
  return send(command).catch((err: unknown) => {
    if (!(err instanceof RedisError) || err.code !== "NOSCRIPT") throw err;
    return send(["SCRIPT", "LOAD", script.source]).then(() => send(command));
  });
}
