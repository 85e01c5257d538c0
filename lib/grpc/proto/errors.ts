// The three ways protobuf work fails: a .proto file that does not parse or link, a value that
// cannot be encoded for its message type, and bytes that do not decode. Each is its own class so
// a caller (the gRPC server) can map them: a decode error is the client's fault (INVALID_ARGUMENT),
// an encode error is the handler's (INTERNAL), a parse error happens at startup.

/** Where in a .proto source something is: 1-based line and column. */
export interface SourcePosition {
  file: string;
  line: number;
  col: number;
}

/** A .proto file that does not parse, or whose definitions do not link (unknown type, clash). */
export class ProtoParseError extends Error {
  override readonly name = "ProtoParseError";
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** The message without the `file:line:col: ` prefix. */
  readonly reason: string;

  constructor(reason: string, at: SourcePosition) {
    super(`${at.file}:${at.line}:${at.col}: ${reason}`);
    this.reason = reason;
    this.file = at.file;
    this.line = at.line;
    this.col = at.col;
  }
}

/** Bytes that are not a valid encoding of the expected message type. */
export class ProtobufDecodeError extends Error {
  override readonly name = "ProtobufDecodeError";
}

/** A JavaScript value that does not fit the message type it is encoded as; `path` names the field. */
export class ProtobufEncodeError extends Error {
  override readonly name = "ProtobufEncodeError";
  readonly path: string;

  constructor(path: string, reason: string) {
    super(path === "" ? reason : `${path}: ${reason}`);
    this.path = path;
  }
}
