// JWK thumbprint (RFC 7638): SHA-256 over the required members in lexicographic order,
// serialized without whitespace. A stable `kid` for a key.
import { createHash } from "node:crypto";
import { JwtError } from "./jwt-error.js";

const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  EC: ["crv", "kty", "x", "y"],
  OKP: ["crv", "kty", "x"],
  RSA: ["e", "kty", "n"],
  oct: ["k", "kty"],
};

export function jwkThumbprint(jwk: Readonly<Record<string, unknown>>, hash: "sha256" | "sha384" | "sha512" = "sha256"): string {
  const kty = jwk["kty"];
  const members = typeof kty === "string" && Object.prototype.hasOwnProperty.call(REQUIRED, kty) ? REQUIRED[kty]! : undefined;
  if (!members) throw new JwtError("invalid_key", `cannot compute a thumbprint for kty ${JSON.stringify(kty)}`);
  const parts = members.map((name) => {
    const value = jwk[name];
    if (typeof value !== "string") throw new JwtError("invalid_key", `JWK member "${name}" must be a string`);
    return `${JSON.stringify(name)}:${JSON.stringify(value)}`;
  });
  return createHash(hash).update(`{${parts.join(",")}}`, "utf8").digest("base64url");
}
