// One socket to Redis. Commands are pipelined: encoded into a staging buffer and sent at the end
// of the event loop's turn (setImmediate), so all commands issued in one turn, whatever callbacks
// issued them, leave in one write; they are matched to replies in order through a FIFO. The handshake
// (HELLO 3 / AUTH, SELECT, CLIENT SETNAME, then PING) runs before the connection is offered to
// callers. The PING proves the server serves commands: one still loading its data answers it
// -LOADING (AUTH and SELECT pass), one at maxclients -ERR; either is a failed attempt, retried
// with backoff, not a ready connection whose every command fails.
//
// Failure semantics: when the socket is lost with commands in flight, each rejects with
// RedisConnectionError; such a command may or may not have run on the server. A command without
// a reply within commandTimeoutMs rejects with RedisTimeoutError and the whole connection is
// reset, so its late reply can never be taken for the answer to a later command.
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { CommandWriter, FLUSH_SIZE } from "./command-writer.js";
import { RespParser, type ParsedReply, type RespLimits } from "./resp-parser.js";
import { RedisConnectionError, RedisError, RedisTimeoutError } from "./errors.js";
import type { RedisScript } from "./script.js";
import type { RedisArg, RedisReply } from "./types.js";
import { defined } from "../../plugin.js";

export interface ConnectionConfig {
  host: string;
  port: number;
  tls: ConnectionOptions | undefined;
  username: string | undefined;
  password: string | undefined;
  db: number | undefined;
  name: string | undefined;
  resp: 2 | 3;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** What one reply may cost (maxReplyBytes, maxReplyElements, maxLineBytes). */
  limits: RespLimits;
}

/** Out-of-band frames: RESP3 pushes, and pub/sub messages on a subscriber connection. */
export type PushHandler = (frame: RedisReply) => void;
export type CloseHandler = (connection: RedisConnection, error: RedisConnectionError) => void;

/** Runs a script again after a NOSCRIPT reply (SCRIPT LOAD first); the client supplies it. */
export type ScriptRerun = (script: RedisScript, keys: readonly string[], args: readonly RedisArg[]) => Promise<RedisReply>;

const NO_KEYS: readonly string[] = [];

/** A command waiting for its reply. */
class Pending {
  readonly resolve: (value: RedisReply) => void;
  readonly reject: (error: Error) => void;
  readonly buffers: boolean;
  readonly deadline: number;
  /** For an EVALSHA sent by sendScript: what to run again on NOSCRIPT. */
  readonly script: RedisScript | null;
  readonly keys: readonly string[];
  readonly args: readonly RedisArg[];

  constructor(
    resolve: (value: RedisReply) => void,
    reject: (error: Error) => void,
    buffers: boolean,
    deadline: number,
    script: RedisScript | null,
    keys: readonly string[],
    args: readonly RedisArg[],
  ) {
    this.resolve = resolve;
    this.reject = reject;
    this.buffers = buffers;
    this.deadline = deadline;
    this.script = script;
    this.keys = keys;
    this.args = args;
  }
}

/** Reply arrays on a RESP2 subscriber connection that are messages, not command replies. */
const MESSAGE_KINDS = new Set(["message", "pmessage", "smessage"]);

function flushConnection(connection: RedisConnection): void {
  connection.flush();
}

function onTimer(connection: RedisConnection): void {
  connection.checkTimeout();
}

/** Where a connection is in its life; only "ready" connections take callers' commands. */
export type ConnectionState = "connecting" | "ready" | "closing" | "closed";

export class RedisConnection {
  state: ConnectionState = "connecting";
  socket: Socket | null = null;

  private readonly config: ConnectionConfig;
  private readonly parser: RespParser;
  private readonly writer = new CommandWriter();
  /** A flush of the writer is scheduled (setImmediate). */
  private flushPending = false;
  private readonly queue: (Pending | undefined)[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly onPush: PushHandler | undefined;
  private readonly onClose: CloseHandler;
  private readonly rerunScript: ScriptRerun | undefined;
  /** A subscriber connection: message arrays go to onPush. */
  private readonly pubsub: boolean;
  private drained: (() => void) | null = null;
  private closedPromise: Promise<void>;
  private resolveClosed!: () => void;
  private failure: RedisConnectionError | null = null;

  constructor(config: ConnectionConfig, onClose: CloseHandler, options: { onPush?: PushHandler; pubsub?: boolean; rerunScript?: ScriptRerun } = {}) {
    this.config = config;
    this.onClose = onClose;
    this.rerunScript = options.rerunScript;
    this.onPush = options.onPush;
    this.pubsub = options.pubsub === true;
    this.parser = new RespParser((value, push, nested) => this.onReply(value, push, nested), config.limits);
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Commands written and not yet answered. */
  get pendingCount(): number {
    return this.queue.length - this.head;
  }

  /** Connects and runs the handshake. Rejects RedisConnectionError (the cause says why). */
  open(): Promise<void> {
    const { host, port, tls, connectTimeoutMs } = this.config;
    let socket: Socket;
    let connectEvent: string;
    if (tls !== undefined) {
      const servername = isIP(host) === 0 ? host : undefined;
      socket = tlsConnect({ host, port, ...defined({ servername }), ...tls });
      connectEvent = "secureConnect";
    } else {
      socket = netConnect({ host, port });
      connectEvent = "connect";
    }
    this.socket = socket;
    socket.setNoDelay(true);

    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (error: RedisConnectionError): void => {
        if (settled) return;
        settled = true;
        reject(error);
        this.teardown(error);
      };
      const connectTimer = setTimeout(() => {
        fail(new RedisConnectionError(`Redis connect to ${host}:${port} timed out after ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      connectTimer.unref();

      socket.on("error", (err: Error) => {
        this.failure ??= new RedisConnectionError(`Redis connection to ${host}:${port} failed: ${err.message}`, { cause: err });
      });
      socket.on("close", () => {
        clearTimeout(connectTimer);
        const error = this.failure ?? new RedisConnectionError(`Redis connection to ${host}:${port} closed`);
        fail(error);
        this.teardown(error);
      });
      socket.on("data", (chunk: Buffer) => this.onData(chunk));
      socket.once(connectEvent, () => {
        clearTimeout(connectTimer);
        socket.setKeepAlive(true, 30_000);
        this.handshake().then(
          () => {
            if (settled) return;
            settled = true;
            this.state = "ready";
            resolve();
          },
          (err: unknown) => {
            const error =
              err instanceof RedisError
                ? new RedisConnectionError(`Redis handshake with ${host}:${port} refused: ${err.message}`, { cause: err })
                : err instanceof RedisConnectionError
                  ? err
                  : new RedisConnectionError(`Redis handshake with ${host}:${port} failed`, { cause: err });
            fail(error);
          },
        );
      });
    });
  }

  private handshake(): Promise<unknown> {
    const { username, password, db, name, resp } = this.config;
    const steps: Promise<RedisReply>[] = [];
    if (resp === 3) {
      const hello: RedisArg[] = ["HELLO", 3];
      if (password !== undefined) hello.push("AUTH", username ?? "default", password);
      if (name !== undefined) hello.push("SETNAME", name);
      steps.push(this.send(hello, false));
    } else {
      if (password !== undefined) steps.push(this.send(username === undefined ? ["AUTH", password] : ["AUTH", username, password], false));
      if (name !== undefined) steps.push(this.send(["CLIENT", "SETNAME", name], false));
    }
    if (db !== undefined && db !== 0) steps.push(this.send(["SELECT", db], false));
    steps.push(this.send(["PING"], false));
    return Promise.all(steps);
  }

  /** Writes one command; its reply (or failure) settles the promise. */
  send(args: readonly RedisArg[], buffers: boolean): Promise<RedisReply> {
    if (this.socket === null || this.state === "closed") {
      return Promise.reject(this.failure ?? new RedisConnectionError("Redis connection is closed"));
    }
    try {
      this.writer.append(args);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.expectReply(buffers, null, NO_KEYS, args);
  }

  /**
   * EVALSHA of `script`; on a NOSCRIPT reply, the connection's rerunScript settles the promise
   * instead (`keys` and `args` are read again then). Costs no more than a plain command.
   */
  sendScript(script: RedisScript, keys: readonly string[], args: readonly RedisArg[]): Promise<RedisReply> {
    if (this.socket === null || this.state === "closed") {
      return Promise.reject(this.failure ?? new RedisConnectionError("Redis connection is closed"));
    }
    try {
      this.writer.appendScript(script, keys, args);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.expectReply(false, script, keys, args);
  }

  /** After a command was staged: schedules the write and queues the promise for its reply. */
  private expectReply(buffers: boolean, script: RedisScript | null, keys: readonly string[], args: readonly RedisArg[]): Promise<RedisReply> {
    if (this.writer.size >= FLUSH_SIZE) this.flush();
    else if (!this.flushPending) {
      this.flushPending = true;
      setImmediate(flushConnection, this);
    }
    return new Promise<RedisReply>((resolve, reject) => {
      const deadline = Date.now() + this.config.commandTimeoutMs;
      if (this.head === this.queue.length) this.parser.buffers = buffers;
      this.queue.push(new Pending(resolve, reject, buffers, deadline, script, keys, args));
      // One timer per connection, for the oldest command's deadline (checkTimeout re-arms it).
      if (this.timer === null) {
        this.timer = setTimeout(onTimer, this.config.commandTimeoutMs, this);
        this.timer.unref();
      }
    });
  }

  /** Hands the staged commands to the socket in one write. */
  flush(): void {
    this.flushPending = false;
    const socket = this.socket;
    if (socket !== null && this.state !== "closed") this.writer.writeTo(socket);
    else this.writer.clear();
  }

  /** The one timer of this connection fires for the oldest command's deadline. */
  checkTimeout(): void {
    this.timer = null;
    const oldest = this.queue[this.head];
    if (oldest === undefined || this.state === "closed") return;
    const now = Date.now();
    if (oldest.deadline > now) {
      this.timer = setTimeout(onTimer, oldest.deadline - now, this);
      this.timer.unref();
      return;
    }
    this.shift();
    oldest.reject(new RedisTimeoutError(`Redis command got no reply within ${this.config.commandTimeoutMs} ms; the connection was reset`));
    this.destroy(new RedisConnectionError("Redis connection reset after a command timed out; the commands in flight may or may not have run"));
  }

  private shift(): Pending | undefined {
    const queue = this.queue;
    const pending = queue[this.head];
    if (pending === undefined) return undefined;
    queue[this.head] = undefined;
    this.head++;
    if (this.head === queue.length) {
      queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= queue.length) {
      queue.splice(0, this.head);
      this.head = 0;
    }
    return pending;
  }

  private onData(chunk: Buffer): void {
    try {
      this.parser.feed(chunk);
    } catch (err) {
      this.destroy(new RedisConnectionError(`Redis connection reset: ${(err as Error).message}`, { cause: err }));
    }
  }

  private onReply(value: ParsedReply, push: boolean, nested: RedisError | undefined): void {
    if (push) {
      this.onPush?.(value as RedisReply);
      return;
    }
    if (this.pubsub && Array.isArray(value) && typeof value[0] === "string" && MESSAGE_KINDS.has(value[0])) {
      this.onPush?.(value);
      return;
    }
    const pending = this.shift();
    if (pending === undefined) {
      this.destroy(new RedisConnectionError("Redis connection reset: a reply arrived for no command"));
      return;
    }
    const next = this.queue[this.head];
    if (next !== undefined) this.parser.buffers = next.buffers;
    if (value instanceof RedisError) {
      if (pending.script !== null && value.code === "NOSCRIPT" && this.rerunScript !== undefined) {
        this.rerunScript(pending.script, pending.keys, pending.args).then(pending.resolve, pending.reject);
      } else pending.reject(value);
    }
    else if (nested !== undefined) {
      nested.reply = value;
      pending.reject(nested);
    } else pending.resolve(value);
    if (this.drained !== null && this.head === this.queue.length) this.drained();
  }

  /** Drops the socket now; everything in flight rejects with `error`. */
  destroy(error: RedisConnectionError): void {
    this.failure ??= error;
    this.socket?.destroy();
    this.teardown(this.failure);
  }

  /** Graceful: lets the commands in flight finish (or time out), then QUIT. */
  async close(): Promise<void> {
    if (this.state === "closed") return;
    if (this.state === "connecting") {
      this.destroy(new RedisConnectionError("Redis client closed"));
      return;
    }
    this.state = "closing";
    if (this.pendingCount > 0) {
      await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = null;
    }
    this.failure ??= new RedisConnectionError("Redis client closed");
    // A teardown while waiting (timeout, lost socket) resolved `drained` too: QUIT only if alive.
    if ((this.state as ConnectionState) === "closing") {
      await this.send(["QUIT"], false).catch(() => undefined);
      this.socket?.end();
    }
    await this.closedPromise;
  }

  /** Once: rejects everything in flight, resets the parser, tells the owner. */
  private teardown(error: RedisConnectionError): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.failure ??= error;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.parser.reset();
    this.writer.clear();
    const inFlight = this.pendingCount;
    const lost =
      inFlight > 0 && error.message.indexOf("may or may not") === -1
        ? new RedisConnectionError(`${error.message}; ${inFlight} command(s) in flight may or may not have run`, { cause: error.cause ?? error })
        : error;
    for (let pending = this.shift(); pending !== undefined; pending = this.shift()) pending.reject(lost);
    if (this.drained !== null) this.drained();
    if (this.socket !== null && !this.socket.destroyed) this.socket.destroy();
    this.resolveClosed();
    this.onClose(this, error);
  }
}
