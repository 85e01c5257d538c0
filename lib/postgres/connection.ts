// One connection to the server: startup and authentication, then statements pipelined over the
// extended protocol. Each statement is written as one group ending in Sync, so the server answers
// groups in order, one ReadyForQuery each; several groups may be in flight. A statement's first
// run on this connection is Parse + Describe (to learn its parameter and column types), then
// Bind + Execute; later runs are Bind + Execute only, from the statement cache. While a Describe
// is out, later statements wait to be written, so statements always run in the order they were
// sent. A lost connection rejects everything queued or in flight with a 08006 error.
// Messages are not written one statement at a time: they collect in `#pending` and go out in one
// socket write at the end of the tick (process.nextTick), or at once past WRITE_BATCH_BYTES. A
// write per statement was one syscall per statement, the largest cost of a pipelined load.
import type { Socket } from "node:net";
import { decoderFor, type Int8Mode } from "./decode.js";
import { encodeParameter } from "./encode.js";
import { PostgresConnectionError, PostgresError, ResultTooLargeError } from "./errors.js";
import { md5Password } from "./md5.js";
import { MessageReader, MessageTooLargeError } from "./reader.js";
import { ScramSession } from "./scram.js";
import { openSocket, type SocketConfig } from "./socket.js";
import { StatementCache, type Column, type Statement } from "./statement-cache.js";
import * as w from "./writer.js";

export interface ConnectionConfig extends SocketConfig {
  readonly user: string;
  readonly password: string | undefined;
  readonly database: string;
  readonly applicationName: string | undefined;
  /** Backend command-line options (`-c statement_timeout=...`), sent in the startup packet. */
  readonly backendOptions: string | undefined;
  readonly allowCleartextPassword: boolean;
  readonly maxMessageBytes: number;
  /** Most row bytes (as sent) one statement's result may hold; past it the statement fails and the rest is discarded. */
  readonly maxResultBytes: number;
  readonly statementCacheSize: number;
  readonly int8: Int8Mode;
}

export type Row = Record<string, unknown>;
export type Rows = Row[] & { count: number };

type Settle = (error: Error | null, rows: Rows | null) => void;

/** A statement waiting to be written or answered. */
class Job {
  error: Error | null = null;
  rows: Row[] = [];
  /** Row bytes received so far (maxResultBytes). */
  bytes = 0;
  tag = "";
  statement: Statement | undefined = undefined;
  /** Set on abort: the job rejects with it whatever the server answers. */
  aborted: unknown = undefined;
  written = false;
  settled = false;
  cancelSent = false;
  constructor(
    readonly simple: boolean,
    readonly text: string,
    readonly values: readonly unknown[],
    readonly settle: Settle,
  ) {}
}

/** What one Sync answers: the describe phase of a job, its execution, or a simple query. */
interface Group {
  readonly job: Job;
  readonly describe: boolean;
  /** Describe phase: what the server said about the statement. */
  parameterTypes?: number[];
  columns?: Column[];
  name?: string;
  /** ParseComplete came: the named statement exists on the server. */
  parsed?: boolean;
}

const EMPTY: Row[] = [];

/** Pending bytes that are written at once rather than at the end of the tick. */
const WRITE_BATCH_BYTES = 64 * 1024;

export class Connection {
  readonly #config: ConnectionConfig;
  readonly #reader: MessageReader;
  readonly #cache: StatementCache;
  #socket: Socket | null = null;
  readonly #outbox: Job[] = [];
  readonly #inflight: Group[] = [];
  /** A Describe is out: nothing more is written until it is answered. */
  #blocked = false;
  #closed = false;
  #closeError: PostgresConnectionError | null = null;
  /** A FATAL error the server sent before closing: the cause of the 08006 everyone gets. */
  #fatal: PostgresError | null = null;
  /** Names to Close, sent ahead of the next group written. */
  #toClose: string[] = [];
  /** Messages not yet handed to the socket (bounded: flushed past WRITE_BATCH_BYTES and every tick). */
  readonly #pending: Buffer[] = [];
  #pendingBytes = 0;
  #flushScheduled = false;
  /** Bound once, so neither a flush nor a chunk read allocates a closure. */
  readonly #flushNow = (): void => this.#flush();
  readonly #onMessageBound = (type: number, body: Buffer): void => this.#onMessage(type, body);
  processId = 0;
  secretKey = 0;
  /** I (idle), T (in a transaction) or E (in a failed transaction), from the last ReadyForQuery. */
  transactionStatus = "I";
  readonly createdAt = Date.now();
  lastUsedAt = Date.now();
  readonly parameters = new Map<string, string>();
  /** LISTEN/NOTIFY deliveries. */
  onNotification: ((channel: string, payload: string) => void) | null = null;
  /** Called once when the connection ends, by error or by close(). */
  onClose: ((error: PostgresConnectionError) => void) | null = null;

  constructor(config: ConnectionConfig) {
    this.#config = config;
    this.#reader = new MessageReader(config.maxMessageBytes);
    this.#cache = new StatementCache(config.statementCacheSize);
  }

  /** Statements queued or in flight: what maxPipeline bounds. */
  get depth(): number {
    return this.#outbox.length + this.#inflight.length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get cachedStatements(): number {
    return this.#cache.size;
  }

  get evictions(): number {
    return this.#cache.evictions;
  }

  /** Connects, authenticates, and waits for the first ReadyForQuery, within connectTimeoutMs. */
  async open(): Promise<void> {
    const config = this.#config;
    const socket = await openSocket(config);
    this.#socket = socket;
    await new Promise<void>((resolve, reject) => {
      let scram: ScramSession | null = null;
      let done = false;
      const finish = (error: Error | null): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.off("data", onStartupData);
        if (error !== null) {
          socket.destroy();
          this.#closed = true;
          reject(error);
          return;
        }
        socket.on("data", (chunk: Buffer) => this.#onData(chunk));
        resolve();
      };
      const timer = setTimeout(
        () => finish(new PostgresConnectionError("08001", `no ReadyForQuery from ${config.host}:${config.port} within ${config.connectTimeoutMs} ms`)),
        config.connectTimeoutMs,
      );
      socket.once("error", (error) => finish(new PostgresConnectionError("08001", `connection failed during startup: ${error.message}`, { cause: error })));
      socket.once("close", () => finish(new PostgresConnectionError("08001", "the server closed the connection during startup")));
      const onMessage = (type: number, body: Buffer): void => {
        switch (type) {
          case 0x52: {
            // 'R' Authentication*
            const kind = body.readInt32BE(0);
            try {
              if (kind === 0) {
                if (scram !== null && !scram.verified) throw new PostgresConnectionError("08001", "the server skipped the SCRAM server signature");
                return;
              }
              if (config.password === undefined && kind !== 0) throw new PostgresConnectionError("08001", "the server asks for a password and none was given");
              const password = config.password!;
              if (kind === 3) {
                // Cleartext: the password itself on the wire. Only over TLS, and only when asked for.
                if (!config.allowCleartextPassword || !("encrypted" in socket)) {
                  throw new PostgresConnectionError("08001", "the server asks for a cleartext password; refused (set allowCleartextPassword, over TLS only)");
                }
                socket.write(w.passwordMessage(password));
              } else if (kind === 5) socket.write(w.passwordMessage(md5Password(config.user, password, body.subarray(4, 8))));
              else if (kind === 10) {
                const mechanisms = body.subarray(4).toString("utf8").split("\0");
                if (!mechanisms.includes("SCRAM-SHA-256")) throw new PostgresConnectionError("08001", `no supported SASL mechanism in ${mechanisms.filter(Boolean).join(", ")}`);
                scram = new ScramSession(password);
                socket.write(w.saslInitialResponse("SCRAM-SHA-256", scram.clientFirst()));
              } else if (kind === 11 && scram !== null) socket.write(w.saslResponse(scram.clientFinal(body.subarray(4).toString("utf8"))));
              else if (kind === 12 && scram !== null) scram.verifyServerFinal(body.subarray(4).toString("utf8"));
              else throw new PostgresConnectionError("08001", `unsupported authentication request ${kind}`);
            } catch (error) {
              finish(error instanceof PostgresConnectionError ? error : new PostgresConnectionError("08001", (error as Error).message, { cause: error }));
            }
            return;
          }
          case 0x4b: // 'K' BackendKeyData
            this.processId = body.readInt32BE(0);
            this.secretKey = body.readInt32BE(4);
            return;
          case 0x53: // 'S' ParameterStatus
            this.#parameterStatus(body);
            return;
          case 0x45: // 'E': refused (wrong password 28P01, no such database 3D000, too many connections 53300)
            finish(new PostgresError(errorFields(body)));
            return;
          case 0x5a: // 'Z' ReadyForQuery
            this.transactionStatus = String.fromCharCode(body[0]!);
            finish(null);
            return;
          default:
            return; // NoticeResponse, NegotiateProtocolVersion: nothing to do
        }
      };
      const onStartupData = (chunk: Buffer): void => {
        try {
          this.#reader.push(chunk, (type, body) => {
            if (!done) onMessage(type, body);
          });
        } catch (error) {
          finish(new PostgresConnectionError("08001", (error as Error).message, { cause: error }));
        }
      };
      socket.on("data", onStartupData);
      const parameters: Record<string, string> = {
        user: config.user,
        database: config.database,
        client_encoding: "UTF8",
        DateStyle: "ISO, MDY",
      };
      if (config.applicationName !== undefined) parameters["application_name"] = config.applicationName;
      if (config.backendOptions !== undefined) parameters["options"] = config.backendOptions;
      socket.write(w.startupMessage(parameters));
    });
    socket.removeAllListeners("error");
    socket.removeAllListeners("close");
    socket.on("error", (error) => this.#fail(error));
    socket.on("close", () => this.#fail(null));
  }

  /** Runs an extended-protocol statement; settles with rows or the error. */
  query(text: string, values: readonly unknown[], settle: Settle): Job {
    const job = new Job(false, text, values, settle);
    this.#enqueue(job);
    return job;
  }

  /** Runs text through the simple protocol (several statements allowed, no parameters, rows dropped). */
  simple(text: string, settle: Settle): Job {
    const job = new Job(true, text, EMPTY, settle);
    this.#enqueue(job);
    return job;
  }

  /** Abort of one job: dropped when not yet written; otherwise the server is asked to cancel it. */
  abort(job: Job, reason: unknown): void {
    if (job.settled) return;
    job.aborted = reason;
    const queued = this.#outbox.indexOf(job);
    if (queued !== -1) {
      this.#outbox.splice(queued, 1);
      this.#settle(job, null);
      return;
    }
    // A CancelRequest interrupts whatever the backend runs now: send it only when this job's
    // group is the one being answered; a job further down the pipeline is cancelled on its turn.
    if (this.#inflight[0]?.job === job) this.#sendCancel(job);
  }

  /** Sends Terminate and closes; everything still queued rejects with 08003. */
  close(): void {
    if (this.#closed) return;
    const socket = this.#socket;
    if (socket !== null && !socket.destroyed) {
      this.#flush();
      // Terminate, then let the server close its side; destroy only if it does not within a second.
      socket.end(w.terminate());
      setTimeout(() => socket.destroy(), 1000).unref();
    }
    this.#fail(null, new PostgresConnectionError("08003", "the connection was closed"), true);
  }

  /** Closes at once, without Terminate (a broken or timed-out connection). */
  destroy(reason: string): void {
    this.#fail(null, new PostgresConnectionError("08006", reason));
  }

  #enqueue(job: Job): void {
    if (this.#closed) {
      job.settled = true;
      job.settle(this.#closeError ?? new PostgresConnectionError("08003", "the connection is closed"), null);
      return;
    }
    this.lastUsedAt = Date.now();
    this.#outbox.push(job);
    this.#pump();
  }

  /** Writes queued jobs until one needs a Describe round trip. */
  #pump(): void {
    const socket = this.#socket;
    if (socket === null) return;
    while (!this.#blocked && this.#outbox.length > 0) {
      const job = this.#outbox.shift()!;
      job.written = true;
      if (job.simple) {
        this.#write(w.simpleQuery(job.text));
        this.#inflight.push({ job, describe: false });
        continue;
      }
      const statement = this.#cache.get(job.text);
      if (statement !== undefined) {
        this.#bind(job, statement);
        continue;
      }
      const name = this.#cache.nextName();
      try {
        this.#write(w.parseDescribeSync(name, job.text, job.values.length));
      } catch (error) {
        this.#reject(job, error as Error);
        continue;
      }
      this.#inflight.push({ job, describe: true, name });
      this.#blocked = true;
    }
  }

  /** Writes Bind + Execute + Sync for a prepared statement; false when a parameter cannot be encoded. */
  #bind(job: Job, statement: Statement): boolean {
    let message: Buffer;
    try {
      const encoded: (string | null)[] = new Array(job.values.length);
      for (let i = 0; i < job.values.length; i++) encoded[i] = encodeParameter(job.values[i], statement.parameterTypes[i] ?? 0, i + 1);
      message = w.bindExecuteSync(statement.name, encoded);
    } catch (error) {
      this.#reject(job, error as Error);
      return false;
    }
    job.statement = statement;
    this.#write(message);
    this.#inflight.push({ job, describe: false });
    return true;
  }

  /** Queues one group's messages (Closes owed go first); written at the end of the tick. */
  #write(message: Buffer): void {
    if (this.#toClose.length > 0) {
      for (const name of this.#toClose) this.#queue(w.closeStatement(name));
      this.#toClose = [];
    }
    this.#queue(message);
    if (this.#pendingBytes >= WRITE_BATCH_BYTES) this.#flush();
    else if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      process.nextTick(this.#flushNow);
    }
  }

  #queue(message: Buffer): void {
    this.#pending.push(message);
    this.#pendingBytes += message.length;
  }

  /** Hands everything pending to the socket in one write. */
  #flush(): void {
    this.#flushScheduled = false;
    const pending = this.#pending;
    if (pending.length === 0) return;
    const socket = this.#socket;
    const data = pending.length === 1 ? pending[0]! : Buffer.concat(pending, this.#pendingBytes);
    pending.length = 0;
    this.#pendingBytes = 0;
    if (socket !== null && !this.#closed) socket.write(data);
  }

  #onData(chunk: Buffer): void {
    try {
      this.#reader.push(chunk, this.#onMessageBound);
    } catch (error) {
      if (error instanceof MessageTooLargeError) this.#fail(error, new PostgresConnectionError("08006", error.message, { cause: error }));
      else this.#fail(error as Error);
    }
  }

  #onMessage(type: number, body: Buffer): void {
    const group = this.#inflight[0];
    switch (type) {
      case 0x44: {
        // 'D' DataRow
        if (group === undefined || group.describe) return;
        const job = group.job;
        const statement = job.statement;
        if (statement === undefined) return;
        job.bytes += body.length;
        if (job.bytes > this.#config.maxResultBytes) {
          // Keep reading (the server sends the rest anyway) but keep nothing: memory stays bounded.
          if (job.rows.length > 0) job.rows = [];
          job.error ??= new ResultTooLargeError(this.#config.maxResultBytes);
          return;
        }
        const columns = statement.columns;
        const row: Row = {};
        let at = 2;
        const count = body.readInt16BE(0);
        for (let i = 0; i < count; i++) {
          const length = body.readInt32BE(at);
          at += 4;
          const column = columns[i]!;
          if (length === -1) row[column.name] = null;
          else {
            const text = body.toString("utf8", at, at + length);
            at += length;
            row[column.name] = column.decode(text);
          }
        }
        job.rows.push(row);
        return;
      }
      case 0x43: // 'C' CommandComplete
        if (group !== undefined) group.job.tag = cstring(body, 0);
        return;
      case 0x5a: {
        // 'Z' ReadyForQuery: the group is answered
        this.transactionStatus = String.fromCharCode(body[0]!);
        const done = this.#inflight.shift();
        if (done !== undefined) this.#groupDone(done);
        const next = this.#inflight[0];
        if (next !== undefined && next.job.aborted !== undefined && !next.job.settled) this.#sendCancel(next.job);
        this.lastUsedAt = Date.now();
        return;
      }
      case 0x31: // '1' ParseComplete
        if (group?.describe === true) group.parsed = true;
        return;
      case 0x74: // 't' ParameterDescription
        if (group?.describe === true) {
          const count = body.readInt16BE(0);
          const types: number[] = [];
          for (let i = 0; i < count; i++) types.push(body.readInt32BE(2 + 4 * i));
          group.parameterTypes = types;
        }
        return;
      case 0x54: // 'T' RowDescription
        if (group?.describe === true) group.columns = this.#columns(body);
        return;
      case 0x6e: // 'n' NoData
        if (group?.describe === true) group.columns = [];
        return;
      case 0x45: {
        // 'E' ErrorResponse
        const error = new PostgresError(errorFields(body));
        if (error.severity === "FATAL" || error.severity === "PANIC") this.#fatal = error;
        else if (group !== undefined && group.job.error === null) group.job.error = error;
        return;
      }
      case 0x41: {
        // 'A' NotificationResponse
        const channel = cstring(body, 4);
        const payload = cstring(body, 4 + Buffer.byteLength(channel) + 1);
        this.onNotification?.(channel, payload);
        return;
      }
      case 0x53: // 'S' ParameterStatus
        this.#parameterStatus(body);
        return;
      default:
        return; // ParseComplete, BindComplete, CloseComplete, EmptyQueryResponse, NoticeResponse
    }
  }

  #groupDone(group: Group): void {
    const job = group.job;
    if (!group.describe) {
      if (job.error instanceof PostgresError && (job.error.code === "26000" || job.error.code === "0A000")) {
        // The prepared statement is gone or its plan no longer fits (the table changed): prepare anew next time.
        const name = this.#cache.remove(job.text);
        if (name !== undefined) this.#toClose.push(name);
      }
      this.#settle(job, job.error);
      return;
    }
    this.#blocked = false;
    let statement: Statement | undefined;
    if (job.error === null && group.parsed === true) {
      // Cached even when the job was aborted meanwhile: the server holds it either way.
      statement = { name: group.name!, parameterTypes: group.parameterTypes ?? [], columns: group.columns ?? [] };
      for (const evicted of this.#cache.add(job.text, statement)) this.#toClose.push(evicted);
    } else if (group.parsed === true) this.#toClose.push(group.name!); // parsed, then the Describe failed (a cancel): close it
    if (statement === undefined || job.aborted !== undefined) this.#settle(job, job.error);
    else this.#bind(job, statement);
    this.#pump();
  }

  #columns(body: Buffer): Column[] {
    const count = body.readInt16BE(0);
    const columns: Column[] = [];
    let at = 2;
    for (let i = 0; i < count; i++) {
      const name = cstring(body, at);
      at += Buffer.byteLength(name) + 1;
      const typeOid = body.readInt32BE(at + 6);
      at += 18;
      columns.push({ name, decode: decoderFor(typeOid, this.#config.int8) });
    }
    return columns;
  }

  #parameterStatus(body: Buffer): void {
    const name = cstring(body, 0);
    this.parameters.set(name, cstring(body, Buffer.byteLength(name) + 1));
  }

  #reject(job: Job, error: Error): void {
    job.settled = true;
    job.settle(error, null);
  }

  #settle(job: Job, error: Error | null): void {
    if (job.settled) return;
    job.settled = true;
    if (job.aborted !== undefined) return job.settle(job.aborted instanceof Error ? job.aborted : new Error(String(job.aborted)), null);
    if (error !== null) return job.settle(error, null);
    const rows = job.rows as Rows;
    rows.count = countOf(job.tag, rows.length);
    // A simple job's caller may need the command tag (a COMMIT that answered ROLLBACK).
    if (job.simple) (rows as Rows & { tag?: string }).tag = job.tag;
    job.rows = EMPTY;
    job.settle(null, rows);
  }

  #sendCancel(job: Job): void {
    if (job.cancelSent) return;
    job.cancelSent = true;
    void this.#cancel();
  }

  /** CancelRequest on a new connection with this backend's key (the protocol's only way to interrupt). */
  async #cancel(): Promise<void> {
    try {
      const socket = await openSocket(this.#config);
      socket.end(w.cancelRequest(this.processId, this.secretKey));
      socket.on("error", () => undefined);
    } catch {
      // The server is unreachable: the statement's own connection will report it.
    }
  }

  #fail(cause: Error | null, error?: PostgresConnectionError, graceful = false): void {
    if (this.#closed) return;
    this.#closed = true;
    const reason =
      error ??
      new PostgresConnectionError("08006", this.#fatal !== null ? `connection lost: ${this.#fatal.message} (${this.#fatal.code})` : "connection lost", {
        cause: this.#fatal ?? cause ?? undefined,
      });
    this.#closeError = reason;
    if (!graceful) this.#socket?.destroy();
    this.#pending.length = 0;
    this.#pendingBytes = 0;
    const pending = [...this.#inflight.map((g) => g.job), ...this.#outbox];
    this.#inflight.length = 0;
    this.#outbox.length = 0;
    for (const job of pending) {
      if (job.settled) continue;
      job.settled = true;
      job.settle(job.aborted !== undefined ? (job.aborted instanceof Error ? job.aborted : new Error(String(job.aborted))) : reason, null);
    }
    this.onClose?.(reason);
  }
}

function cstring(body: Buffer, at: number): string {
  const end = body.indexOf(0, at);
  return body.toString("utf8", at, end === -1 ? body.length : end);
}

function errorFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const key = String.fromCharCode(body[at]!);
    const value = cstring(body, at + 1);
    fields[key] = value;
    at += 1 + Buffer.byteLength(value) + 1;
  }
  return fields;
}

/** Rows affected from a CommandComplete tag ("INSERT 0 3", "UPDATE 2", "SELECT 5"); `fallback` when it carries none. */
function countOf(tag: string, fallback: number): number {
  const space = tag.lastIndexOf(" ");
  if (space === -1) return fallback;
  const n = Number(tag.slice(space + 1));
  return Number.isInteger(n) ? n : fallback;
}
