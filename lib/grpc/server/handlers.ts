// The four handler shapes, chosen by the method's `stream` keywords. Streams of responses are
// returned as (async) iterables, usually async generators: the server pulls the next response
// only when the previous one was written (backpressure), and a generator sees `return()` when the
// call ends early.
import type { DecodedMessage } from "../proto/index.js";
import type { GrpcCall } from "./call.js";

/** A response message: a plain object the method's response type can encode. */
export type ResponseMessage = Record<string, unknown>;

/** `rpc M(Req) returns (Res)` */
export type UnaryHandler<Req = DecodedMessage, Res = ResponseMessage> = (request: Req, call: GrpcCall) => Res | Promise<Res>;
/** `rpc M(Req) returns (stream Res)` */
export type ServerStreamingHandler<Req = DecodedMessage, Res = ResponseMessage> = (request: Req, call: GrpcCall) => AsyncIterable<Res> | Iterable<Res>;
/** `rpc M(stream Req) returns (Res)` */
export type ClientStreamingHandler<Req = DecodedMessage, Res = ResponseMessage> = (requests: AsyncIterable<Req>, call: GrpcCall) => Res | Promise<Res>;
/** `rpc M(stream Req) returns (stream Res)` */
export type BidiStreamingHandler<Req = DecodedMessage, Res = ResponseMessage> = (requests: AsyncIterable<Req>, call: GrpcCall) => AsyncIterable<Res> | Iterable<Res>;

/**
 * Any of the four shapes. The first parameter is typed loosely because which shape applies is
 * known only from the descriptor at run time; annotate it with one of the types above (or
 * `DecodedMessage` / `AsyncIterable<DecodedMessage>`).
 */
export type MethodHandler = (requestOrRequests: any, call: GrpcCall) => unknown;

/** Method name (as in the .proto, `GetUser`, or lower camel case, `getUser`) → handler. */
export type ServiceImplementation = Readonly<Record<string, MethodHandler>>;
