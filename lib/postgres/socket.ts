// Opens the byte stream to the server with sslmode semantics (libpq's): SSLRequest first, then
// TLS on 'S'. disable: plain. prefer: TLS when the server takes it, plain on 'N', certificate
// not checked. require: TLS or fail, certificate not checked. verify-ca: the chain must reach a
// trusted CA (`tls.ca`), any host name. verify-full: the chain and the host name. The whole
// setup is bounded by connectTimeoutMs; failing it is a PostgresConnectionError 08001.
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from "node:tls";
import { PostgresConnectionError } from "./errors.js";
import type { SslMode } from "./url.js";
import { sslRequest } from "./writer.js";

export interface SocketConfig {
  readonly host: string;
  readonly port: number;
  readonly sslmode: SslMode;
  readonly tls: ConnectionOptions;
  readonly connectTimeoutMs: number;
}

export function openSocket(config: SocketConfig): Promise<Socket | TLSSocket> {
  return new Promise((resolve, reject) => {
    const where = `${config.host}:${config.port}`;
    const socket = netConnect({ host: config.host, port: config.port });
    socket.setNoDelay(true);
    let current: Socket = socket;
    let settled = false;
    const fail = (message: string, cause?: unknown): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      current.destroy();
      socket.destroy();
      reject(new PostgresConnectionError("08001", `cannot connect to Postgres at ${where}: ${message}`, { cause }));
    };
    const done = (s: Socket): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.removeAllListeners("error");
      s.removeAllListeners("close");
      resolve(s);
    };
    const timer = setTimeout(() => fail(`no connection within ${config.connectTimeoutMs} ms`), config.connectTimeoutMs);
    socket.once("error", (error) => fail(error.message, error));
    socket.once("close", () => fail("the server closed the connection"));
    socket.once("connect", () => {
      if (config.sslmode === "disable") return done(socket);
      socket.write(sslRequest());
      socket.once("data", (chunk: Buffer) => {
        // One byte answers an SSLRequest; anything more before the handshake is an injection attempt (CVE-2021-23222).
        if (chunk.length !== 1) return fail("unexpected bytes after the SSLRequest answer");
        if (chunk[0] === 0x4e /* N */) {
          if (config.sslmode === "prefer") return done(socket);
          return fail(`the server does not accept TLS (sslmode=${config.sslmode})`);
        }
        if (chunk[0] !== 0x53 /* S */) return fail("unexpected answer to SSLRequest");
        const verify = config.sslmode === "verify-ca" || config.sslmode === "verify-full";
        const options: ConnectionOptions = {
          ...config.tls,
          socket,
          // `host` is what the certificate is checked against (verify-full); SNI only for names.
          host: config.host,
          rejectUnauthorized: verify,
          ...(isIP(config.host) === 0 ? { servername: config.host } : {}),
        };
        if (config.sslmode === "verify-ca") options.checkServerIdentity = () => undefined;
        const secure = tlsConnect(options);
        current = secure;
        secure.once("error", (error) => fail(`TLS: ${error.message}`, error));
        secure.once("secureConnect", () => {
          socket.removeAllListeners("error");
          socket.removeAllListeners("close");
          done(secure);
        });
      });
    });
  });
}
