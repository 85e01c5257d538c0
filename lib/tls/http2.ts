// `http2(tls)`: the listener for HTTP/2 over TLS with HTTP/1.1 fallback on the same port (ALPN
// "h2" or "http/1.1"), both reaching the app's one handler (http2-server.ts). Cleartext HTTP/2
// (h2c) is not offered. WebSocket over HTTP/2 (RFC 8441) is not either: the HTTP/1.1 clients of
// this server are served without upgrades, so an app with WebSocket routes listens with https().
import type { SecureServerOptions } from "node:http2";
import type { Listener } from "../plugin.js";
import { createHttp2Server } from "./http2-server.js";
import { resolveTlsOptions, type TlsOptions } from "./tls-options.js";

/**
 * Serve HTTP/2 and HTTP/1.1 over TLS: `app.listen({ port, listener: http2({ key, cert }) })`.
 * The options are checked here, so a bad one fails at startup. node:http2 is loaded when the app
 * listens; ListeningServer.server is then an Http2SecureServer.
 *
 * @example
 * await app.listen({ port: 8443, listener: http2({ key: readFileSync("key.pem"), cert: readFileSync("cert.pem") }) });
 * @see docs/features/tls.md
 */
export function http2(tls: TlsOptions): Listener {
  const secure = resolveTlsOptions(tls);
  return {
    scheme: "https",
    async create(b) {
      const { createSecureServer } = await import("node:http2");
      return createHttp2Server(createSecureServer, b.handler, b.limits, secure, b.serverOptions as SecureServerOptions | undefined, b.logger);
    },
  };
}
