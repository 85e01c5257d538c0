// redis:// and rediss:// URLs: redis://[user[:password]@]host[:port][/db]. User and password are
// percent-decoded. A bad URL is a TypeError whose message shows the URL with its credentials
// masked: a password never reaches an error message or a log line.

import { redactUrlCredentials } from "../../shared/redact-url.js";

export interface RedisUrlParts {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
}

const DEFAULT_PORT = 6379;

/** The URL with everything between the scheme and the last @ masked, for messages. */
export function redactRedisUrl(url: string): string {
  return redactUrlCredentials(url);
}

export function parseRedisUrl(url: string): RedisUrlParts {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not the URL constructor's error: its `input` property would carry the password.
    throw new TypeError(`Invalid Redis URL: ${redactRedisUrl(url)} (expected redis://[user:password@]host[:port][/db])`);
  }
  const bad = (why: string): TypeError => new TypeError(`Invalid Redis URL ${redactRedisUrl(url)}: ${why}`);
  let tls: boolean;
  if (parsed.protocol === "redis:") tls = false;
  else if (parsed.protocol === "rediss:") tls = true;
  else throw bad(`the scheme must be redis:// or rediss://, not ${parsed.protocol}//`);

  let host = parsed.hostname;
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "") throw bad("no host");
  const port = parsed.port === "" ? DEFAULT_PORT : Number(parsed.port);

  const parts: RedisUrlParts = { host, port, tls };
  try {
    if (parsed.username !== "") parts.username = decodeURIComponent(parsed.username);
    if (parsed.password !== "") parts.password = decodeURIComponent(parsed.password);
  } catch {
    throw bad("malformed percent-encoding in the credentials");
  }
  const path = parsed.pathname;
  if (path !== "" && path !== "/") {
    const db = path.slice(1);
    if (!/^\d{1,5}$/.test(db)) throw bad(`the path must be a database number, not ${JSON.stringify(db)}`);
    parts.db = Number(db);
  }
  return parts;
}
