// Sockets keep one hidden class whether or not a request read their peer address: keel reads it
// at accept (lib/server/peer-address.ts), for plain HTTP and for keel/tls's https() and http2()
// alike. Checked with %HaveSameMap in a child with natives syntax: two keep-alive connections
// (two sessions over HTTP/2), one of which had `ctx.remoteAddress` read by a handler. A bare
// node:http server doing the same is the control: its two sockets differ, which is the
// polymorphism the read at accept prevents.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { it } from "node:test";
import { selfSignedCertificate } from "../support/test-certificate.js";

const lib = new URL("../../lib/index.ts", import.meta.url).href;
const tlsEntry = new URL("../../lib/tls/index.ts", import.meta.url).href;

const script = `
import http from "node:http";
import https from "node:https";
import http2 from "node:http2";
import { App, context, route, silentLogger } from ${JSON.stringify(lib)};
import { http2 as http2Listener, https as httpsListener } from ${JSON.stringify(tlsEntry)};

/** GET /plain then /addr on one connection, /plain on another; returns the two server sockets. */
async function twoSockets(server, url) {
  const tls = url.startsWith("https:");
  const client = tls ? https : http;
  const sockets = [];
  server.on(tls ? "secureConnection" : "connection", (s) => sockets.push(s));
  const get = (agent, path) => new Promise((resolve, reject) => {
    client.get(url + path, { agent }, (res) => { res.resume(); res.on("end", resolve); }).on("error", reject);
  }).then(() => new Promise((r) => setTimeout(r, 20))); // the socket goes back to the agent's pool after "end"
  const a = new client.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const b = new client.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  await get(a, "/plain");
  await get(a, "/addr");
  await get(b, "/plain");
  await get(b, "/plain");
  a.destroy();
  b.destroy();
  if (sockets.length !== 2) throw new Error(url + ": expected 2 connections, got " + sockets.length);
  return sockets;
}

// A fresh app per server: one that has shut down answers with connection: close.
const app = () => new App({ logger: silentLogger }).routes(
  route.get("/plain", [], () => "plain"),
  route.get("/addr", [context()], (ctx) => ctx.remoteAddress),
);
const keel = await app().listen({ port: 0 });
const [k1, k2] = await twoSockets(keel.server, keel.url);
await keel.close();
const tls = { key: process.env.KEY, cert: process.env.CERT };
const secure = await app().listen({ port: 0, listener: httpsListener(tls) });
const [t1, t2] = await twoSockets(secure.server, secure.url);
await secure.close();

// HTTP/2: two sessions (each its own TLS socket), /addr asked on the first only.
const h2 = await app().listen({ port: 0, listener: http2Listener(tls) });
const h2Sockets = [];
h2.server.on("secureConnection", (s) => h2Sockets.push(s));
const h2get = (session, path) => new Promise((resolve, reject) => {
  const stream = session.request({ ":path": path });
  stream.on("error", reject);
  stream.resume();
  stream.on("end", resolve);
});
const s1 = http2.connect(h2.url, { rejectUnauthorized: false });
await h2get(s1, "/plain");
await h2get(s1, "/addr");
const s2 = http2.connect(h2.url, { rejectUnauthorized: false });
await h2get(s2, "/plain");
s1.close();
s2.close();
if (h2Sockets.length !== 2) throw new Error("HTTP/2: expected 2 connections, got " + h2Sockets.length);
const [h1, h2b] = h2Sockets;
await h2.close();

const bare = http.createServer((req, res) => res.end(req.url === "/addr" ? req.socket.remoteAddress : "plain"));
await new Promise((r) => bare.listen(0, "127.0.0.1", r));
const [b1, b2] = await twoSockets(bare, "http://127.0.0.1:" + bare.address().port);
bare.close();
console.log(JSON.stringify({ keel: %HaveSameMap(k1, k2), keelTls: %HaveSameMap(t1, t2), keelHttp2: %HaveSameMap(h1, h2b), bare: %HaveSameMap(b1, b2) }));
`;

it("keeps every accepted socket's hidden class the same whether or not a handler read its peer address", () => {
  const { key, cert } = selfSignedCertificate();
  const out = execFileSync(process.execPath, ["--import", "tsx", "--allow-natives-syntax", "--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, KEY: key, CERT: cert } });
  const result = JSON.parse(out.trim()) as { keel: boolean; keelTls: boolean; keelHttp2: boolean; bare: boolean };
  // The control: without the read at accept, reading the address later changes a socket's class.
  assert.equal(result.bare, false, "a bare node:http server's sockets should differ (else this test checks nothing)");
  assert.equal(result.keel, true, "plain HTTP");
  assert.equal(result.keelTls, true, "HTTPS");
  assert.equal(result.keelHttp2, true, "HTTP/2");
});
