// Dev helper: print an HS256 JWT for the sample service.
//   npx tsx scripts/mint-token.ts --secret <at least 32 bytes> --sub alice --role admin --ttl 3600
// Options: --secret (or env KEEL_JWT_SECRET), --sub (required), --role (becomes the "role"
// claim), --ttl seconds (default 3600), --iss, --aud.
import { parseArgs } from "node:util";
import { JwtError, signJwt } from "../lib/jose/index.js";

function fail(message: string): never {
  process.stderr.write(`mint-token: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    secret: { type: "string" },
    sub: { type: "string" },
    role: { type: "string" },
    ttl: { type: "string", default: "3600" },
    iss: { type: "string" },
    aud: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write("usage: mint-token --secret S --sub SUBJECT [--role ROLE] [--ttl SECONDS] [--iss ISS] [--aud AUD]\n");
  process.exit(0);
}
const secret = values.secret ?? process.env["KEEL_JWT_SECRET"];
if (!secret) fail("--secret (or KEEL_JWT_SECRET) is required");
if (!values.sub) fail("--sub is required");
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) fail("--ttl must be a positive number of seconds");

try {
  const token = signJwt(values.role !== undefined ? { role: values.role } : {}, {
    algorithm: "HS256",
    key: secret,
    subject: values.sub,
    expiresIn: ttl,
    ...(values.iss !== undefined ? { issuer: values.iss } : {}),
    ...(values.aud !== undefined ? { audience: values.aud } : {}),
  });
  process.stdout.write(`${token}\n`);
} catch (error) {
  if (error instanceof JwtError) fail(error.message);
  throw error;
}
