// A streaming RESP2 + RESP3 parser. Chunks may split a frame anywhere. Aggregates are built on an
// explicit stack, so an element already parsed is never parsed again; an incomplete scalar waits
// in a list of chunks that is joined once, when enough bytes (a bulk string's length, or a line's
// LF) have arrived: replies of many pipelined commands and large values cost linear copying.
//
// Bounded against a hostile or broken server: one top-level reply may take at most maxReplyBytes
// on the wire (its aggregates' elements included) and announce at most maxReplyElements elements
// in all, a line (header, simple string, error) at most maxLineBytes, nesting at most MAX_DEPTH.
// A length is checked when it is announced, before anything is buffered for it (nothing is ever
// allocated at the announced size), so a `$536870912` or `*1073741824` header fails at once and a
// line without CRLF fails once it passes maxLineBytes: the parser never holds more than about
// maxReplyBytes of one reply. Past a limit it throws a RedisProtocolError naming the limit; the
// connection resets (the stream is out of step) and reconnects.
import { RedisError, RedisProtocolError, redisErrorReply } from "./errors.js";
import type { RedisReply } from "./types.js";

/** Redis's own proto-max-bulk-len default: no bulk string is ever longer. */
export const MAX_BULK_BYTES = 512 * 1024 * 1024;
/** Deepest aggregate nesting accepted. */
export const MAX_DEPTH = 128;

/** How much one reply may cost the client (RedisClientOptions carries them). */
export interface RespLimits {
  /** Wire bytes of one top-level reply, every element included (default 32 MiB). */
  maxReplyBytes: number;
  /** Elements announced by the aggregates of one top-level reply, summed (a map counts 2 per entry; default 1,048,576). */
  maxReplyElements: number;
  /** One line without its CRLF: an aggregate or bulk header, a simple string, an error (default 1 MiB). */
  maxLineBytes: number;
}

export const DEFAULT_MAX_REPLY_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_REPLY_ELEMENTS = 1024 * 1024;
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
export const DEFAULT_RESP_LIMITS: Readonly<RespLimits> = Object.freeze({
  maxReplyBytes: DEFAULT_MAX_REPLY_BYTES,
  maxReplyElements: DEFAULT_MAX_REPLY_ELEMENTS,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
});

/** A reply as parsed: a RedisError for an error reply (top level or nested). */
export type ParsedReply = RedisReply | RedisError;

/**
 * Called once per complete top-level frame. `push` marks RESP3 out-of-band push frames;
 * `nestedError` is the first error reply found inside an aggregate (e.g. EXEC results).
 */
export type ReplyHandler = (value: ParsedReply, push: boolean, nestedError: RedisError | undefined) => void;

const LF = 10;
const CR = 13;
const MINUS_SIGN = 45;

const KIND_ARRAY = 0;
const KIND_PUSH = 1;
const KIND_MAP = 2;
const KIND_ATTRIBUTE = 3;

/** An aggregate being filled. */
class Frame {
  kind: number;
  remaining: number;
  items: ParsedReply[] = [];
  map: Record<string, ParsedReply> | null = null;
  key = "";
  hasKey = false;
  error: RedisError | undefined = undefined;

  constructor(kind: number, remaining: number) {
    this.kind = kind;
    this.remaining = remaining;
    if (kind === KIND_MAP || kind === KIND_ATTRIBUTE) this.map = Object.create(null) as Record<string, ParsedReply>;
  }
}

/** parseValue's answers besides a value. */
const INCOMPLETE: unique symbol = Symbol("incomplete");
const OPENED: unique symbol = Symbol("opened");
/** An empty push frame (`>0`): a push at top level, an empty array inside an aggregate. */
const EMPTY_PUSH: unique symbol = Symbol("empty push");

const EMPTY = Buffer.alloc(0);

function protocolError(message: string): RedisProtocolError {
  return new RedisProtocolError(`Redis protocol error: ${message}`);
}

function bigintAsText(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function keyText(key: ParsedReply): string {
  if (typeof key === "string") return key;
  if (Buffer.isBuffer(key)) return key.toString("utf8");
  if (key instanceof RedisError) return key.message;
  // An aggregate as a map key (RESP3 allows it): its JSON, big numbers as their digits.
  if (typeof key === "object" && key !== null) return JSON.stringify(key, bigintAsText);
  return String(key);
}

export class RespParser {
  /** Decode bulk strings of the next reply as Buffers (the connection sets it per command). */
  buffers = false;

  private readonly onReply: ReplyHandler;
  private buf: Buffer = EMPTY;
  private pos = 0;
  /** Chunks of an incomplete scalar (the first starts at its type byte), or null. */
  private pending: Buffer[] | null = null;
  private pendingLength = 0;
  /** Bytes the incomplete scalar needs from its type byte on; 0: a line that lacks its LF. */
  private needBytes = 0;
  private readonly stack: Frame[] = [];
  private readonly maxReplyBytes: number;
  private readonly maxReplyElements: number;
  private readonly maxLineBytes: number;
  /** Wire bytes of the current top-level reply parsed so far (before the value being parsed). */
  private replyBytes = 0;
  /** Elements announced so far by the aggregates of the current top-level reply. */
  private replyElements = 0;

  constructor(onReply: ReplyHandler, limits: Readonly<RespLimits> = DEFAULT_RESP_LIMITS) {
    this.onReply = onReply;
    this.maxReplyBytes = limits.maxReplyBytes;
    this.maxReplyElements = limits.maxReplyElements;
    this.maxLineBytes = limits.maxLineBytes;
  }

  /** Bytes held for an incomplete value (never much more than maxReplyBytes or maxLineBytes). */
  get bufferedBytes(): number {
    return this.pendingLength;
  }

  /** Forgets everything buffered (after a protocol error or a lost connection). */
  reset(): void {
    this.buf = EMPTY;
    this.pos = 0;
    this.pending = null;
    this.pendingLength = 0;
    this.needBytes = 0;
    this.stack.length = 0;
    this.replyBytes = 0;
    this.replyElements = 0;
  }

  /** Feeds bytes off the socket; complete frames go to the handler. Throws RedisProtocolError. */
  feed(chunk: Buffer): void {
    if (this.pending !== null) {
      this.pending.push(chunk);
      this.pendingLength += chunk.length;
      if (this.needBytes > 0 ? this.pendingLength < this.needBytes : chunk.indexOf(LF) === -1) {
        if (this.needBytes === 0 && this.pendingLength > this.maxLineBytes) throw this.lineTooLong();
        return;
      }
      this.buf = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingLength);
      this.pending = null;
      this.pendingLength = 0;
    } else {
      this.buf = chunk;
    }
    this.pos = 0;
    this.run();
  }

  private run(): void {
    const buf = this.buf;
    while (this.pos < buf.length) {
      const start = this.pos;
      const value = this.parseValue(buf, start);
      if (value === INCOMPLETE) {
        if (this.needBytes === 0 && buf.length - start > this.maxLineBytes) throw this.lineTooLong();
        this.pending = [buf.subarray(start)];
        this.pendingLength = buf.length - start;
        this.buf = EMPTY;
        this.pos = 0;
        return;
      }
      const used = this.replyBytes + (this.pos - start);
      if (used > this.maxReplyBytes) throw protocolError(`reply over maxReplyBytes (${this.maxReplyBytes})`);
      this.replyBytes = used;
      if (value === EMPTY_PUSH) this.emptyPush();
      else if (value !== OPENED) this.complete(value);
      else if (this.stack.length === 0) {
        // A top-level empty attribute: the value it annotates starts afresh.
        this.replyBytes = 0;
        this.replyElements = 0;
      }
      // The handler may have reset the parser (its connection was torn down): stop here.
      if (this.buf !== buf) return;
    }
    this.buf = EMPTY;
    this.pos = 0;
  }

  /** Adds a finished value to the open aggregates; emits a top-level frame when one closes. */
  private complete(value: ParsedReply): void {
    const stack = this.stack;
    let v = value;
    let push = false;
    let nested: RedisError | undefined;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      if (v instanceof RedisError) frame.error ??= v;
      else if (nested !== undefined) frame.error ??= nested;
      nested = undefined;
      if (frame.map !== null) {
        if (!frame.hasKey) {
          frame.key = keyText(v);
          frame.hasKey = true;
          return;
        }
        frame.map[frame.key] = v;
        frame.hasKey = false;
      } else {
        frame.items.push(v);
      }
      if (--frame.remaining > 0) return;
      stack.pop();
      // An attribute annotates the value that follows it: dropped, it fills no slot.
      if (frame.kind === KIND_ATTRIBUTE) return;
      v = frame.map !== null ? (frame.map as RedisReply) : (frame.items as RedisReply);
      push = frame.kind === KIND_PUSH;
      nested = frame.error;
    }
    this.replyBytes = 0;
    this.replyElements = 0;
    this.onReply(v, push, nested);
  }

  private lineTooLong(): RedisProtocolError {
    return protocolError(`a line without CRLF over maxLineBytes (${this.maxLineBytes})`);
  }

  /** Counts an aggregate's announced elements against maxReplyElements before anything is built for them. */
  private announce(elements: number): void {
    const total = this.replyElements + elements;
    if (total > this.maxReplyElements) {
      throw protocolError(`reply of ${total} or more elements over maxReplyElements (${this.maxReplyElements})`);
    }
    this.replyElements = total;
  }

  private open(kind: number, count: number): typeof OPENED {
    if (this.stack.length >= MAX_DEPTH) throw protocolError(`nesting deeper than ${MAX_DEPTH}`);
    this.stack.push(new Frame(kind, count));
    return OPENED;
  }

  /** One value (or an aggregate header) at `start`; sets this.pos past it. */
  private parseValue(buf: Buffer, start: number): ParsedReply | typeof INCOMPLETE | typeof OPENED | typeof EMPTY_PUSH {
    const lf = findLf(buf, start + 1);
    if (lf === -1) {
      this.needBytes = 0;
      return INCOMPLETE;
    }
    const lineEnd = lf - 1;
    if (buf[lineEnd] !== CR || lineEnd <= start) throw protocolError("line not ended by CRLF");
    if (lineEnd - start > this.maxLineBytes) throw this.lineTooLong();
    const next = lf + 1;
    const type = buf[start] as number;
    switch (type) {
      case 43: // + simple string
        this.pos = next;
        return buf.toString("utf8", start + 1, lineEnd);
      case 45: // - error
        this.pos = next;
        return redisErrorReply(buf.toString("utf8", start + 1, lineEnd));
      case 58: // : integer
        this.pos = next;
        return parseInteger(buf, start + 1, lineEnd);
      case 36: // $ bulk string
      case 33: // ! bulk error
      case 61: {
        // = verbatim string
        const length = parseLength(buf, start + 1, lineEnd);
        if (length === -1) {
          if (type !== 36) throw protocolError("negative length");
          this.pos = next;
          return null;
        }
        if (length > MAX_BULK_BYTES) throw protocolError(`bulk length ${length} over the limit`);
        const end = next + length;
        if (this.replyBytes + (end + 2 - start) > this.maxReplyBytes) {
          throw protocolError(`bulk string of ${length} bytes: reply over maxReplyBytes (${this.maxReplyBytes})`);
        }
        if (end + 2 > buf.length) {
          this.needBytes = end + 2 - start;
          return INCOMPLETE;
        }
        if (buf[end] !== CR || buf[end + 1] !== LF) throw protocolError("bulk string not ended by CRLF");
        this.pos = end + 2;
        if (type === 33) return redisErrorReply(buf.toString("utf8", next, end));
        // Verbatim strings start with a 3-letter format and a colon ("txt:"): dropped.
        const from = type === 61 ? Math.min(next + 4, end) : next;
        return this.buffers ? Buffer.from(buf.subarray(from, end)) : decodeUtf8(buf, from, end);
      }
      case 42: // * array
      case 126: // ~ set
      case 62: {
        // > push
        const count = parseLength(buf, start + 1, lineEnd);
        this.pos = next;
        if (count === -1) {
          if (type !== 42) throw protocolError("negative length");
          return null;
        }
        if (count === 0) {
          if (type === 62) return EMPTY_PUSH;
          return [];
        }
        this.announce(count);
        return this.open(type === 62 ? KIND_PUSH : KIND_ARRAY, count);
      }
      case 37: // % map
      case 124: {
        // | attribute
        const count = parseLength(buf, start + 1, lineEnd);
        this.pos = next;
        if (count < 0) throw protocolError("negative map length");
        if (count === 0) return type === 37 ? (Object.create(null) as RedisReply) : OPENED; // an empty attribute: nothing
        this.announce(2 * count);
        return this.open(type === 37 ? KIND_MAP : KIND_ATTRIBUTE, count); // counted in pairs
      }
      case 95: // _ null
        this.pos = next;
        return null;
      case 35: {
        // # boolean
        this.pos = next;
        const flag = buf[start + 1];
        if (lineEnd !== start + 2 || (flag !== 116 && flag !== 102)) throw protocolError("bad boolean");
        return flag === 116;
      }
      case 44: {
        // , double
        this.pos = next;
        const text = buf.toString("latin1", start + 1, lineEnd);
        if (text === "inf" || text === "+inf") return Infinity;
        if (text === "-inf") return -Infinity;
        if (text === "nan" || text === "-nan") return NaN;
        const n = Number(text);
        if (text === "" || Number.isNaN(n)) throw protocolError("bad double");
        return n;
      }
      case 40: {
        // ( big number
        this.pos = next;
        const text = buf.toString("latin1", start + 1, lineEnd);
        if (!/^[-+]?\d{1,10000}$/.test(text)) throw protocolError("bad big number");
        return BigInt(text);
      }
      default:
        throw protocolError(`unexpected type byte 0x${type.toString(16)}`);
    }
  }

  /** An empty push frame still goes out as a push (rare: no aggregate is opened for it). */
  private emptyPush(): void {
    if (this.stack.length > 0) return this.complete([]);
    this.replyBytes = 0;
    this.replyElements = 0;
    this.onReply([], true, undefined);
  }
}

/** How far findLf looks in JS before a native search: headers and short lines end well within it. */
const SHORT_LINE = 24;

/** Index of the next LF at or after `from`, or -1. Most lines are a few bytes: a JS loop beats a native call. */
function findLf(buf: Buffer, from: number): number {
  const stop = Math.min(buf.length, from + SHORT_LINE);
  for (let i = from; i < stop; i++) if (buf[i] === LF) return i;
  return stop === buf.length ? -1 : buf.indexOf(LF, stop);
}

/** Strings up to this many bytes are decoded in JS when they are ASCII. */
const SHORT_TEXT = 16;

/** UTF-8 text of buf[from, end): short ASCII in JS (a native call costs more), the rest natively. */
function decodeUtf8(buf: Buffer, from: number, end: number): string {
  if (end - from <= SHORT_TEXT) {
    let text = "";
    for (let i = from; i < end; i++) {
      const byte = buf[i] as number;
      if (byte > 0x7f) return buf.toString("utf8", from, end);
      text += String.fromCharCode(byte);
    }
    return text;
  }
  return buf.toString("utf8", from, end);
}

/** A non-negative decimal length, or -1. */
function parseLength(buf: Buffer, from: number, to: number): number {
  if (to - from === 2 && buf[from] === MINUS_SIGN && buf[from + 1] === 49) return -1;
  if (to <= from || to - from > 12) throw protocolError("bad length");
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = (buf[i] as number) - 48;
    if (d < 0 || d > 9) throw protocolError("bad length");
    n = n * 10 + d;
  }
  return n;
}

/** A RESP integer: a number, or a bigint beyond the safe range. */
function parseInteger(buf: Buffer, from: number, to: number): number | bigint {
  let i = from;
  let negative = false;
  if (buf[i] === MINUS_SIGN) {
    negative = true;
    i++;
  } else if (buf[i] === 43) {
    i++;
  }
  if (i >= to || to - i > 20) throw protocolError("bad integer");
  if (to - i <= 15) {
    let n = 0;
    for (; i < to; i++) {
      const d = (buf[i] as number) - 48;
      if (d < 0 || d > 9) throw protocolError("bad integer");
      n = n * 10 + d;
    }
    return negative ? -n : n;
  }
  const text = buf.toString("latin1", from, to);
  if (!/^[-+]?\d+$/.test(text)) throw protocolError("bad integer");
  const big = BigInt(text);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}
