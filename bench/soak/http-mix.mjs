// The HTTP mix: --rate requests a second over weighted routes of the sample, from 50 clients
// (127.0.1.1-50) so each stays within the sample's per-client rate limits at the default rate. A
// 5xx or a socket error is unexpected; every status is counted by route.
import { Agent, request } from "node:http";
import { paced } from "./pace.mjs";
import { sleep } from "./recycle.mjs";

const CLIENTS = 50;
export async function runHttpMix({ port, signal, rate, token, tally }) {
  let userSeq = 0;
  /** [weight, name, method, path(), body?(), headers?] */
  const MIX = [
    [25, "GET /hello", "GET", () => "/hello"],
    [12, "GET /users/{id}", "GET", () => `/users/${1 + (userSeq++ % 12)}`],
    [5, "GET /users/{id} 404", "GET", () => "/users/99999"],
    [10, "GET /api/v1/users", "GET", () => "/api/v1/users?limit=20"],
    [5, "GET unrouted 404", "GET", () => "/does/not/exist"],
    [1, "POST /users", "POST", () => "/users", () => JSON.stringify({ email: `soak${userSeq++}@example.com`, password: "correct horse" })],
    [6, "POST /users 422", "POST", () => "/users", () => JSON.stringify({ email: "nope", password: "short" })],
    [10, "GET /api/v1/me", "GET", () => "/api/v1/me", undefined, { authorization: `Bearer ${token}` }],
    [2, "GET /docs/openapi.json", "GET", () => "/docs/openapi.json"],
    [3, "POST /api/v1/reports", "POST", () => "/api/v1/reports", () => JSON.stringify({ kind: "usage", month: `2024-0${1 + (userSeq++ % 9)}` })],
    [8, "GET /health", "GET", () => "/health"],
    [5, "GET /ready", "GET", () => "/ready"],
    [5, "GET /api/v1/ping", "GET", () => "/api/v1/ping"],
  ];
  const totalWeight = MIX.reduce((n, m) => n + m[0], 0);
  const pickRoute = (r) => {
    let x = r * totalWeight;
    for (const m of MIX) if ((x -= m[0]) < 0) return m;
    return MIX[0];
  };
  const agents = Array.from({ length: CLIENTS }, () => new Agent({ keepAlive: true, maxSockets: 4 }));
  const byRoute = new Map(); // route -> { status: n, socket_errors: n }
  let inFlight = 0;
  let sent = 0;

  function fire() {
    const [, name, method, path, body, headers] = pickRoute(Math.random());
    const payload = body ? body() : undefined;
    const started = process.hrtime.bigint();
    inFlight++;
    sent++;
    tally.count("requests");
    const s = byRoute.get(name) ?? {};
    byRoute.set(name, s);
    const client = 1 + (sent % CLIENTS);
    const req = request({ host: "127.0.0.1", port, method, path: path(), agent: agents[client - 1], localAddress: `127.0.1.${client}`, headers: { ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}), ...headers } }, (res) => {
      res.resume();
      res.on("end", () => {
        inFlight--;
        tally.latency(Number(process.hrtime.bigint() - started) / 1e6);
        s[res.statusCode] = (s[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 500) tally.fail(`${name}: ${res.statusCode}`);
      });
    });
    req.on("error", (err) => {
      inFlight--;
      s.socket_errors = (s.socket_errors ?? 0) + 1;
      tally.fail(`${name}: ${err.code ?? err.message}`);
    });
    req.end(payload);
  }

  await paced({ rate, signal, fire });
  while (inFlight > 0) await sleep(20);
  for (const a of agents) a.destroy();
  tally.counts.statuses_by_route = Object.fromEntries(byRoute);
}
