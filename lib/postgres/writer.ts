// Frontend messages of the wire protocol (protocol version 3.0), each built into one Buffer:
// a type byte, an Int32 length that counts itself, then the body. Strings are NUL-terminated
// UTF-8; a NUL inside one would end it early, so it is refused (the server would read two fields).

export const PROTOCOL_VERSION = 196608; // 3.0
export const SSL_REQUEST_CODE = 80877103;
export const CANCEL_REQUEST_CODE = 80877102;

function cstring(value: string, what: string): Buffer {
  if (value.includes("\0")) throw new TypeError(`${what} must not contain a NUL character`);
  return Buffer.from(value + "\0", "utf8");
}

function message(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return out;
}

function int16(value: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeInt16BE(value, 0);
  return b;
}

function int32(value: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(value, 0);
  return b;
}

/** StartupMessage: no type byte; the parameters as name/value pairs. */
export function startupMessage(parameters: Readonly<Record<string, string>>): Buffer {
  const parts: Buffer[] = [int32(PROTOCOL_VERSION)];
  for (const [name, value] of Object.entries(parameters)) parts.push(cstring(name, "a startup parameter"), cstring(value, `startup parameter ${name}`));
  parts.push(Buffer.from([0]));
  const body = Buffer.concat(parts);
  return Buffer.concat([int32(body.length + 4), body]);
}

export function sslRequest(): Buffer {
  return Buffer.concat([int32(8), int32(SSL_REQUEST_CODE)]);
}

export function cancelRequest(processId: number, secretKey: number): Buffer {
  return Buffer.concat([int32(16), int32(CANCEL_REQUEST_CODE), int32(processId), int32(secretKey)]);
}

export function passwordMessage(password: string): Buffer {
  return message("p", cstring(password, "the password"));
}

export function saslInitialResponse(mechanism: string, data: Buffer): Buffer {
  return message("p", Buffer.concat([cstring(mechanism, "the mechanism"), int32(data.length), data]));
}

export function saslResponse(data: Buffer): Buffer {
  return message("p", data);
}

export function simpleQuery(text: string): Buffer {
  return message("Q", cstring(text, "the statement"));
}

/** Parse with every parameter type left for the server to infer (OID 0). */
export function parse(name: string, text: string, parameterCount: number): Buffer {
  const types = Buffer.alloc(2 + 4 * parameterCount);
  types.writeInt16BE(parameterCount, 0);
  return message("P", Buffer.concat([cstring(name, "a statement name"), cstring(text, "the statement"), types]));
}

/** Describe a prepared statement ('S'): ParameterDescription, then RowDescription or NoData. */
export function describeStatement(name: string): Buffer {
  return message("D", Buffer.concat([Buffer.from("S"), cstring(name, "a statement name")]));
}

/** Parse + Describe + Sync in one buffer: a statement's first run on a connection. */
export function parseDescribeSync(name: string, text: string, parameterCount: number): Buffer {
  return Buffer.concat([parse(name, text, parameterCount), describeStatement(name), SYNC]);
}

/**
 * Bind the unnamed portal (every parameter and every result column in text format), Execute it
 * for every row, Sync: a prepared statement's run, written straight into one allocation (no
 * per-parameter Buffer, no concat).
 */
export function bindExecuteSync(statement: string, values: readonly (string | null)[]): Buffer {
  let bindSize = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    bindSize += 4 + (v === null || v === undefined ? 0 : Buffer.byteLength(v));
  }
  const out = Buffer.allocUnsafe(1 + bindSize + EXECUTE_SYNC.length);
  out[0] = 0x42; // 'B'
  out.writeInt32BE(bindSize, 1);
  let at = 5;
  out[at++] = 0; // unnamed portal
  at += out.write(statement, at, "utf8");
  out[at++] = 0;
  out.writeInt16BE(0, at); // no parameter format codes: all text
  at += 2;
  out.writeInt16BE(values.length, at);
  at += 2;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      out.writeInt32BE(-1, at);
      at += 4;
    } else {
      const length = out.write(v, at + 4, "utf8");
      out.writeInt32BE(length, at);
      at += 4 + length;
    }
  }
  out.writeInt16BE(0, at); // no result format codes: all text
  at += 2;
  EXECUTE_SYNC.copy(out, at);
  return out;
}

const EXECUTE_ALL = message("E", Buffer.concat([Buffer.from([0]), int32(0)]));
const SYNC = message("S", Buffer.alloc(0));
const EXECUTE_SYNC = Buffer.concat([EXECUTE_ALL, SYNC]);
const TERMINATE = message("X", Buffer.alloc(0));

export function terminate(): Buffer {
  return TERMINATE;
}

export function closeStatement(name: string): Buffer {
  return message("C", Buffer.concat([Buffer.from("S"), cstring(name, "a statement name")]));
}

export { int16 };
