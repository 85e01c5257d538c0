// The event-loop cost of the worst JSON bodies the defaults let through (1 MiB body limit,
// 50 000 values): each body through app.inject five times, median and max in ms.
// Run: node --import tsx bench/json-worst-case.ts
import { App, json, route, silentLogger } from "../lib/index.js";
const app = new App({ logger: silentLogger });
app.route(route.post("/any", [json()], (b) => ({ ok: true })));
const MiB = 1024 * 1024;
function fill(open: string, item: (i: number) => string, close: string): string {
  let s = open; let i = 0;
  while (true) { const next = (i ? "," : "") + item(i); if (s.length + next.length + close.length > MiB) break; s += next; i++; }
  return s + close;
}
const cases: Record<string, string> = {
  "[{},...] 1MiB": fill("[", () => "{}", "]"),
  "[{},...] under cap": "[" + Array.from({ length: 24_999 }, () => "{}").join(",") + "]",
  "[[],...] under cap": "[" + Array.from({ length: 24_999 }, () => "[]").join(",") + "]",
  "{k:0,...} under cap": "{" + Array.from({ length: 49_990 }, (_, i) => `"k${i}":0`).join(",") + "}",
  "10-key objects under cap": "[" + Array.from({ length: 4_500 }, (_, j) => "{" + Array.from({ length: 10 }, (_, i) => `"k${i}":${j}`).join(",") + "}").join(",") + "]",
  "distinct-key objects": "[" + Array.from({ length: 4_500 }, (_, j) => "{" + Array.from({ length: 10 }, (_, i) => `"k${j}_${i}":1`).join(",") + "}").join(",") + "]",
  '["s",...] under cap': "[" + Array.from({ length: 49_990 }, (_, i) => `"s${i}"`).join(",") + "]",
  "[1.5e300,...] under cap": "[" + Array.from({ length: 49_990 }, () => "1.5e300").join(",") + "]",
  "string 1MiB": JSON.stringify("x".repeat(MiB - 10)),
  "escaped string": JSON.stringify("\u0001".repeat(170000)),
};
for (const [name, body] of Object.entries(cases)) {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await app.inject({ method: "POST", url: "/any", body, headers: { "content-type": "application/json" } });
    times.push(performance.now() - t0); status = r.status;
  }
  times.sort((a, b) => a - b);
  console.log(name.padEnd(26), String(body.length).padStart(8), status, "median", times[2]!.toFixed(1), "max", times[4]!.toFixed(1), "ms");
}
