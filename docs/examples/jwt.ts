// Routes behind a JWT bearer token (HS256): /public is open, /me needs a valid token, /admin a
// token whose `role` claim is "admin". Missing or bad token: 401 with WWW-Authenticate; wrong
// role: 403. Run (the secret is an HMAC key of at least 32 bytes):
//   export JWT_SECRET=$(openssl rand -hex 32)
//   PORT=3000 npx tsx jwt.ts
//   TOKEN=$(npx tsx ../../scripts/mint-token.ts --secret "$JWT_SECRET" --sub ada --role admin --iss example)
//   curl localhost:3000/me -H "authorization: Bearer $TOKEN"
import { App, group, route } from "keel";
import { authUser, jwt, requireRole } from "keel/auth";

const secret = process.env["JWT_SECRET"];
if (secret === undefined) throw new Error("set JWT_SECRET (an HMAC key of at least 32 bytes)");

// Name the algorithms you accept: a token signed any other way (or `alg: none`) is refused.
const auth = jwt({ algorithms: ["HS256"], key: secret, issuer: "example" });

const app = new App().routes(
  route.get("/public", [], () => ({ open: true })),
  group({ layers: [auth] }, [
    // authUser() is the verified payload; `sub` is whoever the token was issued to.
    route.get("/me", [authUser()], (user) => ({ sub: user.sub ?? null })),
    route.get("/admin", [requireRole("admin")], (user) => ({ welcome: user.sub ?? null })),
  ]),
);

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
