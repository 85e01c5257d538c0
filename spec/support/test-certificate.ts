// A throwaway self-signed certificate for TLS tests: EC P-256, valid one day, for localhost and
// 127.0.0.1, made with the openssl command line (throws when openssl is missing; callers that can
// do without TLS catch it and skip). The files live in a temp dir removed before returning.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificate {
  /** PEM private key. */
  readonly key: string;
  /** PEM certificate (its own CA: trust it to trust the server). */
  readonly cert: string;
}

export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), "keel-cert-"));
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
