// SCRAM-SHA-256 (RFC 5802, RFC 7677) as Postgres runs it: no channel binding (gs2 header "n,,"),
// an empty username in the messages (the server takes the startup user). The server's final
// signature is verified with a constant-time compare: a server that does not know the password
// cannot pass for the real one.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

const GS2_HEADER = "n,,";
/** Iterations we compute at most: a hostile server could ask for billions and stall the process. */
const MAX_ITERATIONS = 1_000_000;

function hmac(key: Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

export class ScramSession {
  readonly #password: string;
  readonly #nonce: string;
  readonly #clientFirstBare: string;
  #serverSignature: Buffer | null = null;
  #verified = false;

  constructor(password: string, nonce = randomBytes(18).toString("base64")) {
    this.#password = password;
    this.#nonce = nonce;
    this.#clientFirstBare = `n=,r=${nonce}`;
  }

  /** SASLInitialResponse data. */
  clientFirst(): Buffer {
    return Buffer.from(GS2_HEADER + this.#clientFirstBare, "utf8");
  }

  /** SASLResponse data for the server-first message (AuthenticationSASLContinue). */
  clientFinal(serverFirst: string): Buffer {
    const attrs = attributes(serverFirst);
    const nonce = attrs.get("r");
    const salt = attrs.get("s");
    const iterations = Number(attrs.get("i"));
    if (nonce === undefined || !nonce.startsWith(this.#nonce) || nonce.length === this.#nonce.length) throw new Error("SCRAM: the server nonce does not extend ours");
    if (salt === undefined || salt === "") throw new Error("SCRAM: the server sent no salt");
    if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) throw new Error(`SCRAM: iteration count ${attrs.get("i")} is out of range`);
    const salted = pbkdf2Sync(this.#password.normalize("NFKC"), Buffer.from(salt, "base64"), iterations, 32, "sha256");
    const clientKey = hmac(salted, "Client Key");
    const storedKey = createHash("sha256").update(clientKey).digest();
    const withoutProof = `c=${Buffer.from(GS2_HEADER).toString("base64")},r=${nonce}`;
    const authMessage = `${this.#clientFirstBare},${serverFirst},${withoutProof}`;
    const clientSignature = hmac(storedKey, authMessage);
    const proof = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) proof[i] = clientKey[i]! ^ clientSignature[i]!;
    this.#serverSignature = hmac(hmac(salted, "Server Key"), authMessage);
    return Buffer.from(`${withoutProof},p=${proof.toString("base64")}`, "utf8");
  }

  /** Checks the server-final message (AuthenticationSASLFinal); throws when it does not prove the server knows the password. */
  verifyServerFinal(serverFinal: string): void {
    const attrs = attributes(serverFinal);
    const error = attrs.get("e");
    if (error !== undefined) throw new Error(`SCRAM: the server refused: ${error}`);
    const v = attrs.get("v");
    if (this.#serverSignature === null || v === undefined) throw new Error("SCRAM: no server signature");
    const got = Buffer.from(v, "base64");
    if (got.length !== this.#serverSignature.length || !timingSafeEqual(got, this.#serverSignature)) {
      throw new Error("SCRAM: the server signature is wrong (the server does not know the password)");
    }
    this.#verified = true;
  }

  /** True once verifyServerFinal passed: AuthenticationOk before that is refused. */
  get verified(): boolean {
    return this.#verified;
  }
}

function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(",")) {
    const eq = part.indexOf("=");
    if (eq === 1) out.set(part[0]!, part.slice(2));
  }
  return out;
}
