// A streaming multipart parser (RFC 2046 §5.1, RFC 7578): a state machine fed chunk by chunk that
// hands part data on as it arrives and never holds more than a part's headers plus a delimiter's
// length of body. A delimiter (CRLF "--" boundary) may be split over any number of chunks.
//
//   PREAMBLE ──delimiter──► AFTER_DELIMITER ──CRLF──► HEADERS ──CRLF CRLF──► BODY ──delimiter──┐
//                               │  ▲                                                         │
//                               │  └─────────────────────────────────────────────────────────┘
//                               └──"--"──► EPILOGUE (ignored; the body is complete)
//
// The body is read as if it began with CRLF, so a first boundary on the very first line is found
// by the same search as every later one.
import { malformed, limitExceeded } from "./errors.js";
import { ByteBuffer } from "./byte-buffer.js";
import { parsePartHeaders, type PartHeaders } from "./part-headers.js";

export interface PartHandler {
  /** A part's headers were read. May throw (limits, refused types). */
  partBegin(headers: PartHeaders): void;
  /** Bytes of the current part's body (a view into the chunk: consume or copy before returning). */
  partData(data: Buffer): void;
  partEnd(): void;
}

const PREAMBLE = 0;
const AFTER_DELIMITER = 1;
const HEADERS = 2;
const BODY = 3;
const EPILOGUE = 4;

const CR = 13;
const LF = 10;
const DASH = 45;
const EMPTY = Buffer.alloc(0);
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");
/** Spaces and tabs allowed after a boundary (RFC 2046 transport padding) before its CRLF. */
const MAX_PADDING = 256;

export class MultipartParser {
  private state = PREAMBLE;
  private readonly delimiter: Buffer;
  /** PREAMBLE/BODY: the tail of the bytes seen that may be the start of a delimiter. */
  private carry: Buffer = CRLF;
  /** AFTER_DELIMITER: the first byte after the boundary ("-" or CR), 0 before it. */
  private lead = 0;
  private padding = 0;
  /** HEADERS: the boundary line's CRLF, then the header bytes read so far. */
  private readonly headerBytes = new ByteBuffer(512);
  private readonly maxHeaderSize: number;
  private readonly handler: PartHandler;

  constructor(boundary: string, maxHeaderSize: number, handler: PartHandler) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, "latin1");
    this.maxHeaderSize = maxHeaderSize;
    this.handler = handler;
  }

  /** True once the closing delimiter was read; what follows is epilogue. */
  get complete(): boolean {
    return this.state === EPILOGUE;
  }

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case PREAMBLE:
        case BODY:
          at = this.scanBody(chunk, at);
          break;
        case AFTER_DELIMITER:
          at = this.afterDelimiter(chunk, at);
          break;
        case HEADERS:
          at = this.readHeaders(chunk, at);
          break;
        default:
          return; // epilogue: ignored
      }
    }
  }

  /** The body ended: anything but a read closing delimiter means it was cut short. */
  end(): void {
    if (this.state !== EPILOGUE) throw malformed("the body ends before the closing boundary", false);
  }

  private scanBody(chunk: Buffer, at: number): number {
    const carried = this.carry.length;
    const rest = chunk.subarray(at);
    const buf = carried === 0 ? rest : Buffer.concat([this.carry, rest]);
    this.carry = EMPTY;
    const inBody = this.state === BODY;
    const delimiter = this.delimiter;
    const found = buf.indexOf(delimiter);
    if (found !== -1) {
      if (inBody) {
        if (found > 0) this.handler.partData(buf.subarray(0, found));
        this.handler.partEnd();
      }
      this.state = AFTER_DELIMITER;
      this.lead = 0;
      this.padding = 0;
      // The carry was shorter than a delimiter, so the match ends inside this chunk.
      return at + found + delimiter.length - carried;
    }
    const keep = partialDelimiterStart(buf, delimiter);
    if (inBody && keep > 0) this.handler.partData(buf.subarray(0, keep));
    if (keep < buf.length) this.carry = buf.subarray(keep);
    return chunk.length;
  }

  private afterDelimiter(chunk: Buffer, at: number): number {
    const len = chunk.length;
    while (at < len) {
      const b = chunk[at++]!;
      if (this.lead === 0) {
        if ((b === DASH && this.padding === 0) || b === CR) {
          this.lead = b;
        } else if ((b === 32 || b === 9) && ++this.padding <= MAX_PADDING) {
          continue;
        } else {
          throw malformed("a boundary is followed by something else than CRLF or --");
        }
      } else if (this.lead === DASH) {
        if (b !== DASH) throw malformed("a boundary is followed by something else than CRLF or --");
        this.state = EPILOGUE;
        return len;
      } else {
        if (b !== LF) throw malformed("a boundary line does not end with CRLF");
        this.state = HEADERS;
        this.headerBytes.reset();
        this.headerBytes.append(CRLF);
        return at;
      }
    }
    return at;
  }

  private readHeaders(chunk: Buffer, at: number): number {
    const acc = this.headerBytes;
    const before = acc.length;
    // Never hold more than the limit allows: the CRLF before, the headers, the CRLF CRLF after.
    const cap = this.maxHeaderSize + 6;
    const take = Math.min(chunk.length - at, cap - before);
    acc.append(chunk.subarray(at, at + take));
    const view = acc.view();
    const end = view.indexOf(HEADER_END, Math.max(0, before - 3));
    if (end === -1) {
      if (acc.length >= cap) throw limitExceeded("limits.maxHeaderSize", this.maxHeaderSize, "A part's header block");
      return at + take;
    }
    // With the leading CRLF counted in, `end` is the size of the header lines (each with its CRLF).
    if (end > this.maxHeaderSize) throw limitExceeded("limits.maxHeaderSize", this.maxHeaderSize, "A part's header block");
    const headers = parsePartHeaders(end === 0 ? EMPTY : view.subarray(2, end + 2));
    this.handler.partBegin(headers);
    this.state = BODY;
    return at + (end + 4 - before);
  }
}

/** Where the longest tail of `buf` that is a proper prefix of `delimiter` starts (`buf.length`: none). */
function partialDelimiterStart(buf: Buffer, delimiter: Buffer): number {
  const n = buf.length;
  let i = Math.max(0, n - delimiter.length + 1);
  for (;;) {
    i = buf.indexOf(CR, i);
    if (i === -1) return n;
    if (buf.compare(delimiter, 0, n - i, i, n) === 0) return i;
    i++;
  }
}
