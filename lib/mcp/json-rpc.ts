// JSON-RPC 2.0 as MCP uses it: one message per HTTP body or stdio line, the error codes, and the
// answers. Batches (arrays) were removed from MCP in 2025-06-18: they are refused with -32600.

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number;

/** A request (it has an id and wants an answer) or a notification (no id). */
export interface JsonRpcCall {
  readonly id?: JsonRpcId;
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

export interface JsonRpcError {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId | null;
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export interface JsonRpcResult {
  readonly jsonrpc: "2.0";
  readonly id: JsonRpcId;
  readonly result: unknown;
}

export type JsonRpcAnswer = JsonRpcError | JsonRpcResult;

/** One parsed message: a call, a client's answer to a server request (ignored: we send none), or an error to send back. */
export type Incoming = { readonly kind: "call"; readonly call: JsonRpcCall } | { readonly kind: "response" } | { readonly kind: "error"; readonly error: JsonRpcError };

export function rpcError(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcError {
  return data === undefined ? { jsonrpc: "2.0", id, error: { code, message } } : { jsonrpc: "2.0", id, error: { code, message, data } };
}

export function rpcResult(id: JsonRpcId, result: unknown): JsonRpcResult {
  return { jsonrpc: "2.0", id, result };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function validId(v: unknown): v is JsonRpcId {
  return typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

/** Parses one message's text: -32700 for text that is not JSON, -32600 for JSON that is not one JSON-RPC 2.0 message. */
export function parseMessage(text: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "error", error: rpcError(null, PARSE_ERROR, "Parse error: the body is not JSON") };
  }
  return classify(value);
}

export function classify(value: unknown): Incoming {
  if (Array.isArray(value)) {
    return { kind: "error", error: rpcError(null, INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one message at a time") };
  }
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") {
    return { kind: "error", error: rpcError(null, INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 object ("jsonrpc": "2.0")') };
  }
  const id = value["id"];
  const hasId = Object.hasOwn(value, "id");
  if (hasId && !validId(id)) return { kind: "error", error: rpcError(null, INVALID_REQUEST, "Invalid Request: id must be a string or a number") };
  const method = value["method"];
  if (method === undefined && hasId && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) return { kind: "response" };
  const replyId = hasId ? (id as JsonRpcId) : null;
  if (typeof method !== "string" || method === "") return { kind: "error", error: rpcError(replyId, INVALID_REQUEST, "Invalid Request: method must be a non-empty string") };
  const params = value["params"];
  if (params !== undefined && !isRecord(params)) return { kind: "error", error: rpcError(replyId, INVALID_PARAMS, "Invalid params: params must be an object") };
  const call: JsonRpcCall = hasId ? { id: id as JsonRpcId, method, ...(params === undefined ? {} : { params }) } : { method, ...(params === undefined ? {} : { params }) };
  return { kind: "call", call };
}
