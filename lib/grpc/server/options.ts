// Settings of a gRPC server and of its listen() call.
import type { ErrorMapper, Logger } from "../../index.js";
import { DEFAULT_MAX_CONCURRENT_STREAMS, type TlsOptions } from "../../tls/index.js";

export const DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH = 4 * 1024 * 1024;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Concurrent calls per connection, advertised in SETTINGS: keel's HTTP/2 listener's figure. */
export const DEFAULT_GRPC_MAX_CONCURRENT_STREAMS = DEFAULT_MAX_CONCURRENT_STREAMS;
/** Request metadata (the HTTP/2 header list): the figure of keel's HTTP header limit (maxHeaderSize). */
export const DEFAULT_GRPC_MAX_METADATA_SIZE = 16 * 1024;
/** A TLS handshake must finish within keel's headersTimeout default (Node's own is 120 s). */
export const DEFAULT_GRPC_HANDSHAKE_TIMEOUT_MS = 10_000;

export interface GrpcServerOptions {
  /** Where handler failures are logged (with their error_id). Default: JSON lines at warn and above. */
  logger?: Logger;
  /** "production" masks the messages of server errors. Default: process.env.KEEL_ENV. */
  env?: string;
  /** Largest request message in bytes, after decompression (default 4 MiB); larger → RESOURCE_EXHAUSTED. */
  maxReceiveMessageLength?: number;
  /**
   * Calls one connection may have open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; default
   * 100, as keel's HTTP/2 listener; grpc-js: `grpc.max_concurrent_streams`). A stream past it is
   * refused with RST_STREAM REFUSED_STREAM, which clients retry.
   */
  maxConcurrentStreams?: number;
  /**
   * Largest request metadata in bytes, counted as an HTTP/2 header list (RFC 9113 §6.5.2: name +
   * value + 32 per entry, pseudo-headers included; default 16 KiB, keel's HTTP header limit;
   * grpc-js: `grpc.max_metadata_size`). Advertised as SETTINGS_MAX_HEADER_LIST_SIZE; a call over
   * it ends at once with RESOURCE_EXHAUSTED and its handler never runs.
   */
  maxMetadataSize?: number;
  /** A TLS handshake that has not finished after this many ms closes the connection (default 10 s). */
  handshakeTimeout?: number;
  /** How long close() lets in-flight calls finish before cancelling them, in ms (default 10 s). */
  shutdownTimeout?: number;
  /**
   * Mappers of library errors a handler may throw (keel/db-errors' mapDatabaseError), tried in
   * order as an App's `mapErrors` are; their status becomes the gRPC status (409 ALREADY_EXISTS...).
   */
  errorMappers?: readonly ErrorMapper[];
}

export interface GrpcListenOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** Serve over TLS (HTTP/2 with ALPN h2); without it, cleartext HTTP/2 with prior knowledge (h2c). */
  tls?: TlsOptions;
}

export interface GrpcListeningServer {
  readonly port: number;
  /** `http://host:port` (h2c) or `https://host:port`. */
  readonly url: string;
  /** Graceful shutdown: see GrpcServer.close(). */
  close(): Promise<void>;
}
