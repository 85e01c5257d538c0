// Real-socket helpers for tests where the wire matters.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: false } = {},
): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString("utf8"), raw });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/** Write raw bytes on a fresh TCP connection and collect everything until the server closes or `untilMs`. */
export function rawExchange(port: number, payload: string | Buffer, untilMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => sock.destroy(), untilMs);
    sock.on("data", (c) => chunks.push(c));
    sock.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("latin1"));
    });
    sock.on("error", (err) => {
      clearTimeout(timer);
      if (chunks.length > 0) resolve(Buffer.concat(chunks).toString("latin1"));
      else reject(err);
    });
    sock.write(payload);
  });
}

export const ERROR_ID = /^err_[0-9a-f]{32}$/;
