// Uploads (`POST /api/v1/uploads`, multipart/form-data: a title and one file of 100-300 KiB) at
// --upload-rate a second, spread over CLIENTS local addresses of their own so each stays well
// inside the sample's per-client write budget (2 a second). Every 201 receipt must give back the
// title, file name, size, type and the SHA-256 of the bytes sent; 429 is counted (a budget, not a
// fault); anything else is unexpected. At most MAX_IN_FLIGHT at once (more are skipped and
// counted), so a slow server cannot make this process hold a growing queue of bodies.
import { createHash, randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { paced } from "./pace.mjs";
import { sleep } from "./recycle.mjs";

const CLIENTS = 8;
const MAX_IN_FLIGHT = 8;
const MIN_SIZE = 100 * 1024;
const MAX_SIZE = 300 * 1024;
const MAX_ANSWER = 64 * 1024;

export async function runUploads({ port, signal, rate, tally, address }) {
  const pool = randomBytes(MAX_SIZE + 4096); // files are slices of it at random offsets
  const agents = Array.from({ length: CLIENTS }, () => new Agent({ keepAlive: true, maxSockets: 2 }));
  let inFlight = 0;
  let n = 0;

  function upload() {
    const id = n++;
    const size = MIN_SIZE + Math.floor(Math.random() * (MAX_SIZE - MIN_SIZE));
    const start = Math.floor(Math.random() * (pool.length - size));
    const file = pool.subarray(start, start + size);
    const sha256 = createHash("sha256").update(file).digest("hex");
    const boundary = `----keel-soak-${randomBytes(12).toString("hex")}`;
    const title = `soak upload ${id}`;
    const name = `soak-${id}.bin`;
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="title"\r\n\r\n${title}\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const started = process.hrtime.bigint();
    inFlight++;
    const client = id % CLIENTS;
    const req = request(
      {
        host: "127.0.0.1", port, method: "POST", path: "/api/v1/uploads", agent: agents[client], localAddress: address(client),
        headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": head.length + file.length + tail.length },
      },
      (res) => {
        const chunks = [];
        let bytes = 0;
        res.on("data", (c) => {
          bytes += c.length;
          if (bytes <= MAX_ANSWER) chunks.push(c);
        });
        res.on("end", () => {
          inFlight--;
          tally.latency(Number(process.hrtime.bigint() - started) / 1e6);
          tally.count(`status_${res.statusCode}`);
          if (res.statusCode === 429) return;
          if (res.statusCode !== 201) return tally.fail(`answered ${res.statusCode}: ${Buffer.concat(chunks).subarray(0, 120).toString()}`);
          let r;
          try {
            r = JSON.parse(Buffer.concat(chunks).toString());
          } catch {
            return tally.fail("a 201 whose body is not JSON");
          }
          if (r.sha256 !== sha256) tally.fail(`sha256 ${r.sha256} for ${sha256}`);
          else if (r.size !== size || r.title !== title || r.name !== name || r.content_type !== "application/octet-stream") tally.fail(`receipt ${JSON.stringify(r)} for ${size} B ${name}`);
          else tally.count("verified");
        });
      },
    );
    req.on("error", (err) => {
      inFlight--;
      tally.fail(`socket ${err.code ?? err.message}`);
    });
    req.write(head);
    req.write(file);
    req.end(tail);
  }

  await paced({ rate, signal, fire: () => (inFlight >= MAX_IN_FLIGHT ? tally.count("skipped_busy") : upload()) });
  while (inFlight > 0) await sleep(20);
  for (const a of agents) a.destroy();
}
