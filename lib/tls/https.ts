// `https(tls)`: the listener for HTTPS (HTTP/1.1 over TLS) on node:https, with the kernel's
// limits, client-error answers and drain exactly as its plain node:http server has them, and
// WebSocket upgrades when the app has WebSocket routes. The TLS handshake gets `headersTimeout`
// (Node's own handshakeTimeout is 120 s): a connection that never sends its ClientHello is the
// TLS form of one that never sends its headers.
import type { ServerOptions } from "node:http";
import { applyServerLimits, serverConstructionOptions, type Listener } from "../plugin.js";
import { resolveTlsOptions, type TlsOptions } from "./tls-options.js";

/**
 * Serve HTTPS: `app.listen({ port, listener: https({ key, cert }) })`. The options are checked
 * here (key and cert, or pfx; TLS 1.2 the floor unless set), so a bad one fails at startup.
 * node:https is loaded when the app listens.
 *
 * @example
 * await app.listen({ port: 8443, listener: https({ key: readFileSync("key.pem"), cert: readFileSync("cert.pem") }) });
 * @see docs/features/tls.md
 */
export function https(tls: TlsOptions): Listener {
  const secure = resolveTlsOptions(tls);
  return {
    scheme: "https",
    async create(b) {
      const { createServer } = await import("node:https");
      const server = createServer({ ...secure, handshakeTimeout: b.limits.headersTimeout, ...serverConstructionOptions(b.limits), ...(b.serverOptions as ServerOptions) }, b.handler);
      applyServerLimits(server, b.limits);
      if (b.upgradeListener !== null) server.on("upgrade", b.upgradeListener);
      return { server };
    },
  };
}
