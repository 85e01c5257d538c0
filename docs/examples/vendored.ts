// An app that uses the vendored single file instead of the package: `keel.js` and `keel.d.ts`
// built with only the features it needs, copied to ./vendor. From the keel checkout:
//   node scripts/build.mjs --features request-id,security-headers
//   mkdir -p docs/examples/vendor && cp dist/keel.js dist/keel.d.ts docs/examples/vendor/
// Run: PORT=3000 npx tsx vendored.ts (or compile it with tsc and run it with node).
// Everything comes from the one file: the kernel plus the named features.
import { App, requestId, route, securityHeaders } from "./vendor/keel.js";

const app = new App();
app.layer(requestId()); // keeps a valid x-request-id, else makes one, and sends it back
app.layer(securityHeaders()); // nosniff, frame and referrer policies, CSP
app.routes(route.get("/", [], () => ({ vendored: true })));

const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
const server = await app.listen({ port: Number(process.env["PORT"] ?? 3000), signal: stop.signal });
console.log(`listening on ${server.url}`);
await server.closed;
