// keel/tls: HTTPS and HTTP/2 for `app.listen()`, as listeners (keel/plugin's Listener):
// `listen({ listener: https({ key, cert }) })` serves HTTP/1.1 over TLS (WebSocket upgrades
// included), `listen({ listener: http2({ key, cert }) })` HTTP/2 with HTTP/1.1 fallback over ALPN.
// Both keep the kernel's limits, uniform client-error answers and graceful drain (GOAWAY for
// HTTP/2 sessions). `resolveTlsOptions` checks a TlsOptions the way they do (keel/grpc uses it).
export { https } from "./https.js";
export { http2 } from "./http2.js";
export { DEFAULT_MAX_CONCURRENT_STREAMS } from "./http2-server.js";
export { resolveTlsOptions, type TlsOptions } from "./tls-options.js";
