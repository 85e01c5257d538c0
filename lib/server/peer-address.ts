// Every accepted socket has its peer address read once, at accept, whether or not anything asks
// for it later. node's net.Socket caches the address in a property (`_peername`) that it adds on
// the first read of `remoteAddress`. Read lazily (a span recorded for 1% of requests, a rate limit
// on some routes, a log line on errors), that property lands on each socket at a different point
// of its life, so the sockets of one server end up with different hidden classes and node's own
// HTTP code (parser callbacks, stream writes) turns polymorphic for every request. Measured on
// `/hello` with 1% of spans recorded: ~1 µs more CPU on every request (~9%), gone once the read
// happens at accept. The cost is one getpeername call per connection: ~1.6 µs, about 1% of what
// node spends on a connection that carries one request, nothing per request.
import type { Server as NetServer, Socket } from "node:net";

function readPeerAddress(socket: Socket): void {
  void socket.remoteAddress;
}

/**
 * Read each socket's peer address as the server accepts it: on "connection" for cleartext servers,
 * on "secureConnection" for TLS ones (their requests' socket is the TLS socket).
 */
export function settlePeerAddresses(server: NetServer, event: "connection" | "secureConnection"): void {
  server.on(event, readPeerAddress);
}
