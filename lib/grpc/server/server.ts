// A gRPC server on node:http2 (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md).
// It answers what is not a gRPC call at the HTTP level (405, 415), routes `/package.Service/Method`
// paths to registered handlers, and drains gracefully: close() runs shutdown hooks (the health
// service turns NOT_SERVING), sends GOAWAY on every connection, lets in-flight calls finish up to
// `shutdownTimeout`, then cancels the rest.
import type { AddressInfo } from "node:net";
import type { Http2SecureServer, Http2Server, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import { isProductionEnv } from "../../plugin.js";
import { resolveTlsOptions } from "../../tls/index.js";
import { createJsonLogger, type Logger } from "../../index.js";
import type { MethodDescriptor, ServiceDescriptor } from "../proto/index.js";
import { ACCEPTED_ENCODINGS, isSupportedEncoding } from "./decompress.js";
import type { MethodHandler, ServiceImplementation } from "./handlers.js";
import { encodeGrpcMessage } from "./metadata.js";
import {
  DEFAULT_GRPC_HANDSHAKE_TIMEOUT_MS, DEFAULT_GRPC_MAX_CONCURRENT_STREAMS, DEFAULT_GRPC_MAX_METADATA_SIZE, DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH, DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type GrpcListenOptions, type GrpcListeningServer, type GrpcServerOptions,
} from "./options.js";
import { resetAfterStatus } from "./reset-after-status.js";
import { runCall, type ActiveCall, type CallSettings } from "./run-call.js";
import { GrpcStatus, type GrpcStatusCode } from "./status.js";
import { parseGrpcTimeout } from "./timeout.js";

/** A service with its implementation, as one value (what healthService() returns). */
export interface GrpcServiceRegistration {
  readonly service: ServiceDescriptor;
  readonly implementation: ServiceImplementation;
  /** Called first thing in close(), before connections are drained. */
  onShutdown?(): void;
}

// After cancelling the calls left at the drain timeout, how long connections get to close cleanly.
const CANCEL_FLUSH_MS = 1000;

interface RoutedMethod {
  readonly method: MethodDescriptor;
  readonly handler: MethodHandler | undefined;
}

export class GrpcServer {
  readonly #routes = new Map<string, RoutedMethod>();
  readonly #shutdownHooks: Array<() => void> = [];
  readonly #sessions = new Set<Http2Session>();
  readonly #calls = new Set<ActiveCall>();
  readonly #settings: CallSettings;
  readonly #shutdownTimeout: number;
  readonly #maxConcurrentStreams: number;
  readonly #maxMetadataSize: number;
  readonly #handshakeTimeout: number;
  #server: Http2Server | Http2SecureServer | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: GrpcServerOptions = {}) {
    const max = options.maxReceiveMessageLength ?? DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH;
    if (!Number.isInteger(max) || max < 0 || max > 0xffff_ffff) throw new RangeError("grpcServer: maxReceiveMessageLength must be an integer from 0 to 2^32-1");
    const shutdownTimeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    if (!Number.isFinite(shutdownTimeout) || shutdownTimeout < 0) throw new RangeError("grpcServer: shutdownTimeout must be a number of ms >= 0");
    this.#shutdownTimeout = shutdownTimeout;
    const streams = options.maxConcurrentStreams ?? DEFAULT_GRPC_MAX_CONCURRENT_STREAMS;
    if (!Number.isInteger(streams) || streams < 1 || streams > 0xffff_ffff) throw new RangeError("grpcServer: maxConcurrentStreams must be an integer from 1 to 2^32-1");
    this.#maxConcurrentStreams = streams;
    const metadata = options.maxMetadataSize ?? DEFAULT_GRPC_MAX_METADATA_SIZE;
    if (!Number.isInteger(metadata) || metadata < 1024 || metadata > 0xffff_ffff) throw new RangeError("grpcServer: maxMetadataSize must be an integer from 1024 to 2^32-1");
    this.#maxMetadataSize = metadata;
    const handshake = options.handshakeTimeout ?? DEFAULT_GRPC_HANDSHAKE_TIMEOUT_MS;
    if (!Number.isFinite(handshake) || handshake < 1) throw new RangeError("grpcServer: handshakeTimeout must be a number of ms >= 1");
    this.#handshakeTimeout = handshake;
    this.#settings = {
      maxReceiveMessageLength: max,
      production: isProductionEnv(options.env ?? process.env["KEEL_ENV"]),
      logger: options.logger ?? createJsonLogger({ level: "warn" }),
      errorMappers: options.errorMappers ?? [],
    };
  }

  get logger(): Logger {
    return this.#settings.logger;
  }

  /**
   * Serve `service` with `implementation` (method name → handler; the .proto name `GetUser` or
   * `getUser`). A method without a handler answers UNIMPLEMENTED; a handler naming no method of
   * the service is a TypeError (a typo would otherwise go unnoticed).
   */
  addService(registration: GrpcServiceRegistration): this;
  addService(service: ServiceDescriptor, implementation: ServiceImplementation): this;
  addService(a: ServiceDescriptor | GrpcServiceRegistration, b?: ServiceImplementation): this {
    const registration: GrpcServiceRegistration = "implementation" in a ? a : { service: a, implementation: b ?? {} };
    const { service, implementation } = registration;
    const known = new Set<string>();
    for (const method of service.methods) {
      if (this.#routes.has(method.path)) throw new Error(`grpcServer: ${method.path} is already served`);
      const lowerCamel = method.name.charAt(0).toLowerCase() + method.name.slice(1);
      known.add(method.name).add(lowerCamel);
      const handler = Object.hasOwn(implementation, method.name) ? implementation[method.name] : Object.hasOwn(implementation, lowerCamel) ? implementation[lowerCamel] : undefined;
      if (handler !== undefined && typeof handler !== "function") throw new TypeError(`grpcServer: the handler of ${method.path} is not a function`);
      this.#routes.set(method.path, { method, handler });
    }
    for (const name of Object.keys(implementation)) {
      if (!known.has(name)) throw new TypeError(`grpcServer: ${service.fullName} has no method "${name}"`);
    }
    if (registration.onShutdown !== undefined) this.#shutdownHooks.push(() => registration.onShutdown!());
    return this;
  }

  /** Run `hook` first thing in close() (before GOAWAY), e.g. to fail health checks. */
  onShutdown(hook: () => void): this {
    this.#shutdownHooks.push(hook);
    return this;
  }

  /** Listen on HTTP/2: h2c without `tls`, TLS with ALPN h2 with it. One listen per server. */
  async listen(options: GrpcListenOptions): Promise<GrpcListeningServer> {
    if (this.#server !== undefined || this.#closing !== undefined) throw new Error("grpcServer: listen() was already called");
    const host = options.host ?? "127.0.0.1";
    // Loaded here so an app that never serves gRPC never loads node:http2.
    const http2 = await import("node:http2");
    // Node's default is 2^32-1 concurrent streams per connection: one client could open thousands of calls.
    // node:http2 enforces the advertised header list size only once the client has acknowledged
    // our SETTINGS, so the first calls of a connection are measured in #onStream too.
    const settings = { maxConcurrentStreams: this.#maxConcurrentStreams, maxHeaderListSize: this.#maxMetadataSize };
    const server =
      options.tls === undefined
        ? http2.createServer({ settings })
        : http2.createSecureServer({ ...resolveTlsOptions(options.tls), settings, handshakeTimeout: this.#handshakeTimeout });
    this.#server = server;
    server.on("session", (session: Http2Session) => this.#trackSession(session));
    server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => this.#onStream(stream, headers, rawHeaders));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const urlHost = host.includes(":") ? `[${host}]` : host;
    return { port, url: `${options.tls === undefined ? "http" : "https"}://${urlHost}:${port}`, close: () => this.close() };
  }

  /**
   * Graceful shutdown: shutdown hooks (health → NOT_SERVING), GOAWAY on every connection (no new
   * calls), in-flight calls finish until `shutdownTimeout`, then the rest are cancelled (their
   * signals abort, streams reset with CANCEL). Resolves when the listener is closed.
   */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    for (const hook of this.#shutdownHooks) {
      try {
        hook();
      } catch (err) {
        this.#settings.logger.log(50, "grpc shutdown hook failed", { err });
      }
    }
    const server = this.#server;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const session of this.#sessions) session.close();
    if (!(await settlesWithin(closed, this.#shutdownTimeout))) {
      for (const call of this.#calls) call.cancel();
      // Connections close by themselves once their streams are reset; give the RST_STREAM
      // frames a moment to reach the clients before cutting what is left.
      if (!(await settlesWithin(closed, CANCEL_FLUSH_MS))) {
        for (const session of this.#sessions) session.destroy();
      }
    }
    await closed;
  }

  #trackSession(session: Http2Session): void {
    this.#sessions.add(session);
    session.on("close", () => this.#sessions.delete(session));
    session.on("error", () => {
      // A broken connection: its streams see 'close' and their calls end as cancelled.
    });
    if (this.#closing !== undefined) session.close();
  }

  #onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]): void {
    stream.on("error", () => {});
    if (headerListSize(rawHeaders) > this.#maxMetadataSize) {
      trailersOnly(stream, GrpcStatus.RESOURCE_EXHAUSTED, `Request metadata larger than the limit of ${this.#maxMetadataSize} bytes`);
      // The request may still be sending its messages: stop it once the status above is out.
      if (!stream.endAfterHeaders) resetAfterStatus(stream);
      return;
    }
    if (headers[":method"] !== "POST") {
      stream.respond({ ":status": 405, allow: "POST" }, { endStream: true });
      return;
    }
    if (!isGrpcContentType(headers["content-type"])) {
      stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    const path = headers[":path"] ?? "";
    const route = this.#routes.get(path);
    if (route === undefined) {
      trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${path}`);
      return;
    }
    if (this.#closing !== undefined) {
      trailersOnly(stream, GrpcStatus.UNAVAILABLE, "Server shutting down");
      return;
    }
    const encodingHeader = headers["grpc-encoding"];
    const encoding = typeof encodingHeader === "string" ? encodingHeader.trim().toLowerCase() : "identity";
    if (!isSupportedEncoding(encoding)) {
      trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, `Received message compressed with unsupported encoding "${encoding}"`);
      return;
    }
    const timeoutHeader = headers["grpc-timeout"];
    let timeoutMs: number | undefined;
    if (typeof timeoutHeader === "string") {
      timeoutMs = parseGrpcTimeout(timeoutHeader);
      if (timeoutMs === undefined) {
        trailersOnly(stream, GrpcStatus.INTERNAL, `Invalid grpc-timeout value "${timeoutHeader}"`);
        return;
      }
    }
    const call = runCall({ stream, headers, method: route.method, handler: route.handler, encoding, timeoutMs }, this.#settings);
    // Tracked until its stream closes (not until the handler returns: a handler that ignores
    // its aborted signal must not pin the call).
    this.#calls.add(call);
    stream.once("close", () => this.#calls.delete(call));
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * Create a gRPC server on node:http2; add services, then listen(). Handlers throw what routes
 * throw (an ApiError maps to the gRPC status of its HTTP status).
 *
 * @example
 * const root = loadProtoSource(protoText, "greet/v1/greet.proto");
 * const listening = await grpcServer()
 *   .addService(root.services.get("greet.v1.Greeter")!, { SayHello: (req: { name: string }) => ({ message: `Hello, ${req.name}` }) })
 *   .addService(healthService({ "greet.v1.Greeter": "SERVING" }))
 *   .listen({ port: 50051 });
 * @see docs/features/grpc.md
 */
export function grpcServer(options?: GrpcServerOptions): GrpcServer {
  return new GrpcServer(options);
}

// application/grpc, optionally +proto, optionally with parameters. Other subtypes (+json) are
// formats this server does not speak.
function isGrpcContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/grpc" || type === "application/grpc+proto";
}

/** The header list size of RFC 9113 §6.5.2 (name + value + 32 per entry), as node:http2 counts it. */
function headerListSize(raw: string[]): number {
  let size = 0;
  for (let i = 0; i < raw.length; i++) size += raw[i]!.length;
  return size + (raw.length >> 1) * 32;
}

function trailersOnly(stream: ServerHttp2Stream, code: GrpcStatusCode, message: string): void {
  stream.respond({
    ":status": 200,
    "content-type": "application/grpc+proto",
    "grpc-accept-encoding": ACCEPTED_ENCODINGS,
    "grpc-status": String(code),
    "grpc-message": encodeGrpcMessage(message),
  }, { endStream: true });
}
