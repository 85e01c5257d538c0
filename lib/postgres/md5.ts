// md5 password authentication (AuthenticationMD5Password): weaker than SCRAM, still what older
// clusters and pg_hba "md5" lines ask for.
import { createHash } from "node:crypto";

/** The md5 password answer: "md5" + md5(md5(password + user) + salt), in hex. */
export function md5Password(user: string, password: string, salt: Buffer): string {
  const inner = createHash("md5").update(password + user).digest("hex");
  return "md5" + createHash("md5").update(Buffer.concat([Buffer.from(inner), salt])).digest("hex");
}
