// The TLS settings `https()` and `http2()` take (and keel/grpc's listen({ tls })): the subset of
// node:tls options a server needs (its key and certificate, a CA for client certificates, the
// protocol floor and ciphers), checked when the listener is made so a missing key fails at
// startup rather than at the first handshake.
import type { SecureContextOptions, TlsOptions as NodeTlsOptions } from "node:tls";

type PemInput = string | Buffer | Array<string | Buffer>;

export interface TlsOptions
  extends Pick<SecureContextOptions, "passphrase" | "pfx" | "ciphers" | "ecdhCurve" | "dhparam" | "sigalgs" | "honorCipherOrder" | "secureOptions" | "crl" | "sessionIdContext" | "minVersion" | "maxVersion">,
    Pick<NodeTlsOptions, "requestCert" | "rejectUnauthorized" | "SNICallback" | "sessionTimeout" | "ticketKeys"> {
  /** Private key(s) in PEM (required unless `pfx`). */
  key?: PemInput | SecureContextOptions["key"];
  /** Certificate chain(s) in PEM (required unless `pfx`). */
  cert?: PemInput;
  /** Trusted CAs for client certificates (with `requestCert`). */
  ca?: PemInput;
}

function present(v: unknown): boolean {
  if (v === undefined || v === null || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Uint8Array) return v.byteLength > 0;
  return true;
}

/** The options for https/http2 `createServer`, or a TypeError naming what is missing. */
export function resolveTlsOptions(tls: TlsOptions): NodeTlsOptions {
  if (tls === null || typeof tls !== "object") throw new TypeError("keel: listen option tls must be an object with key and cert");
  if (!present(tls.pfx) && (!present(tls.key) || !present(tls.cert))) {
    throw new TypeError("keel: listen option tls needs key and cert (PEM), or pfx");
  }
  // TLS 1.2 is the floor unless the caller says otherwise (Node's default today; pinned here so
  // a process-wide --tls-min-v1.0 does not silently lower it).
  return { minVersion: "TLSv1.2", ...tls } as NodeTlsOptions;
}
