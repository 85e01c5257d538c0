// Raw node:http written as well as a careful person would: the physical limit the other servers
// are compared with. A segment trie for the route table, one writeHead per response with every
// header in one object, bodies read with a size limit, validation by hand, the same error shape.
//   node raw.mjs [--stack]
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ALLOWED_ORIGIN,
  announceReady,
  benchErrorBody,
  checkCreateUser,
  exitOnSignal,
  parseIdParam,
  requestIdFor,
  SECURITY_HEADERS,
  wantsProductionStack,
  writeAccessLog,
} from "./common.js";
import { benchExtraRoutes, EXTRA_ROUTE_BODY, HELLO_BODY, makeBigPayload } from "./route-table.js";

const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = "application/json";

/** Per-request state of the production stack (null when it is off). */
interface StackState {
  readonly reqId: string;
  readonly start: number;
  readonly method: string;
  readonly path: string;
  /** request id, CORS and security headers; the response's own headers are added to it. */
  readonly headers: Record<string, string | number>;
}

type RawHandler = (req: IncomingMessage, res: ServerResponse, params: string[], stack: StackState | null) => void;

interface TrieNode {
  statics: Map<string, TrieNode>;
  param: TrieNode | null;
  handlers: Map<string, RawHandler>;
}

function trieNode(): TrieNode {
  return { statics: new Map(), param: null, handlers: new Map() };
}

/** Static paths in one Map per method; parameter routes in a segment trie. */
class RawRouter {
  private readonly exact = new Map<string, Map<string, RawHandler>>();
  private readonly root = trieNode();

  add(method: string, path: string, handler: RawHandler): void {
    if (!path.includes("{")) {
      let byMethod = this.exact.get(method);
      if (byMethod === undefined) this.exact.set(method, (byMethod = new Map()));
      byMethod.set(path, handler);
      return;
    }
    let node = this.root;
    for (const seg of path.slice(1).split("/")) {
      if (seg.startsWith("{")) node = node.param ?? (node.param = trieNode());
      else {
        let next = node.statics.get(seg);
        if (next === undefined) node.statics.set(seg, (next = trieNode()));
        node = next;
      }
    }
    node.handlers.set(method, handler);
  }

  /** The handler, with parameter values pushed into `params`; null when nothing matches. */
  find(method: string, path: string, params: string[]): RawHandler | null {
    const hit = this.exact.get(method)?.get(path);
    if (hit !== undefined) return hit;
    let node: TrieNode | null = this.root;
    let start = 1;
    const n = path.length;
    while (node !== null && start <= n) {
      let end = path.indexOf("/", start);
      if (end === -1) end = n;
      const seg = path.slice(start, end);
      const next: TrieNode | undefined = node.statics.get(seg);
      if (next !== undefined) node = next;
      else if (node.param !== null && seg.length > 0) {
        params.push(seg.includes("%") ? safeDecode(seg) : seg);
        node = node.param;
      } else node = null;
      start = end + 1;
    }
    return node === null ? null : (node.handlers.get(method) ?? null);
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function sendJson(res: ServerResponse, status: number, body: string, stack: StackState | null): void {
  if (stack === null) {
    res.writeHead(status, { "content-type": JSON_TYPE, "content-length": Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const headers = stack.headers;
  headers["content-type"] = JSON_TYPE;
  headers["content-length"] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(body);
  writeAccessLog(stack.reqId, stack.method, stack.path, status, stack.start);
}

function sendError(res: ServerResponse, stack: StackState | null, status: number, type: string, message: string, fields?: ReturnType<typeof checkCreateUser>): void {
  sendJson(res, status, benchErrorBody(type, message, fields), stack);
}

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semi = value.indexOf(";");
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === JSON_TYPE;
}

/** Collect the body up to BODY_LIMIT, then hand it over; 413 and a closed request beyond it. */
function readBody(req: IncomingMessage, res: ServerResponse, stack: StackState | null, done: (body: Buffer) => void): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > BODY_LIMIT) return sendError(res, stack, 413, "payload_too_large", "Request body too large");
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on("data", (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > BODY_LIMIT) {
      over = true;
      sendError(res, stack, 413, "payload_too_large", "Request body too large");
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    if (!over) done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  });
}

function createUser(req: IncomingMessage, res: ServerResponse, _params: string[], stack: StackState | null): void {
  if (!isJsonContentType(req.headers["content-type"])) return sendError(res, stack, 415, "unsupported_media_type", "Expected application/json");
  readBody(req, res, stack, (raw) => {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendError(res, stack, 400, "bad_request", "Malformed JSON body");
    }
    const fields = checkCreateUser(body);
    if (fields.length > 0) return sendError(res, stack, 422, "validation_error", "Request validation failed", fields);
    sendJson(res, 201, JSON.stringify({ id: 1, email: (body as { email: string }).email }), stack);
  });
}

function buildRouter(): RawRouter {
  const big = makeBigPayload();
  const router = new RawRouter();
  router.add("GET", "/hello", (_req, res, _params, stack) => sendJson(res, 200, JSON.stringify(HELLO_BODY), stack));
  router.add("GET", "/users/{id}", (_req, res, params, stack) => {
    const id = parseIdParam(params[0]!);
    if (id < 0) {
      return sendError(res, stack, 422, "validation_error", "Request validation failed", [{ field: "id", code: "type", message: "must be an unsigned integer" }]);
    }
    sendJson(res, 200, JSON.stringify({ id, name: "user" }), stack);
  });
  router.add("POST", "/users", createUser);
  router.add("GET", "/big", (_req, res, _params, stack) => sendJson(res, 200, JSON.stringify(big), stack));
  const extra: RawHandler = (_req, res, _params, stack) => sendJson(res, 200, JSON.stringify(EXTRA_ROUTE_BODY), stack);
  for (const r of benchExtraRoutes()) router.add(r.method, r.path, extra);
  return router;
}

function splitPath(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function plainHandler(router: RawRouter): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const params: string[] = [];
    const handler = router.find(req.method ?? "GET", splitPath(req.url ?? "/"), params);
    if (handler === null) return sendError(res, null, 404, "not_found", "Not found");
    handler(req, res, params, null);
  };
}

/** Scenario 4: the same routes with request id, CORS, security headers and an access log. */
function stackHandler(router: RawRouter): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const start = performance.now();
    const reqId = requestIdFor(req.headers["x-request-id"]);
    const method = req.method ?? "GET";
    const path = splitPath(req.url ?? "/");
    const headers: Record<string, string | number> = { "x-request-id": reqId, ...SECURITY_HEADERS };
    if (req.headers.origin === ALLOWED_ORIGIN) {
      headers["access-control-allow-origin"] = ALLOWED_ORIGIN;
      headers["access-control-expose-headers"] = "x-request-id";
      headers["vary"] = "origin";
    }
    const stack: StackState = { reqId, start, method, path, headers };
    const params: string[] = [];
    const handler = router.find(method, path, params);
    if (handler === null) return sendError(res, stack, 404, "not_found", "Not found");
    handler(req, res, params, stack);
  };
}

exitOnSignal();
const router = buildRouter();
const server = createServer(wantsProductionStack() ? stackHandler(router) : plainHandler(router));
server.listen(0, "127.0.0.1", () => announceReady((server.address() as AddressInfo).port));
