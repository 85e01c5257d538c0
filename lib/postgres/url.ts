// postgres:// and postgresql:// URLs (DATABASE_URL): user and password percent-decoded, host,
// port, database, and the query parameters we support. Anything else (an unknown parameter, a
// second host, a bad sslmode) is a TypeError naming it, with the credentials masked: a password
// never reaches an error message or a log line.

import { redactUrlCredentials } from "../shared/redact-url.js";

export type SslMode = "disable" | "prefer" | "require" | "verify-ca" | "verify-full";

export const SSL_MODES: readonly SslMode[] = ["disable", "prefer", "require", "verify-ca", "verify-full"];

export interface PostgresUrlParts {
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
  sslmode?: SslMode;
  applicationName?: string;
  connectTimeoutMs?: number;
  /** The libpq `options` parameter: command-line options for the backend (`-c name=value`). */
  options?: string;
}

const PARAMS = new Set(["sslmode", "application_name", "connect_timeout", "options"]);

/** The URL with everything between the scheme and the last @ masked, for messages. */
export function redactPostgresUrl(url: string): string {
  return redactUrlCredentials(url);
}

export function parsePostgresUrl(url: string): PostgresUrlParts {
  if (typeof url !== "string") throw new TypeError("a Postgres URL is a string");
  const bad = (why: string): TypeError => new TypeError(`Invalid Postgres URL ${redactPostgresUrl(url)}: ${why}`);
  const scheme = /^(postgres|postgresql):\/\//i.exec(url);
  if (scheme === null) throw bad("the scheme must be postgres:// or postgresql://");
  // A comma in the authority is libpq's multi-host syntax, which we do not take.
  const authority = url.slice(scheme[0].length).split(/[/?#]/, 1)[0]!;
  if (authority.slice(authority.lastIndexOf("@") + 1).includes(",")) throw bad("several hosts are not supported");
  let parsed: URL;
  try {
    // The WHATWG parser knows "postgres:" only as an opaque scheme; parse as http to get the parts.
    parsed = new URL("http://" + url.slice(scheme[0].length));
  } catch {
    // Not the URL constructor's error: its `input` property would carry the password.
    throw bad("expected postgres://[user[:password]@]host[:port][/database][?param=value]");
  }
  const parts: PostgresUrlParts = {};
  let host = parsed.hostname;
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host !== "") {
    try {
      parts.host = decodeURIComponent(host);
    } catch {
      throw bad("malformed percent-encoding in the host");
    }
  }
  if (parsed.port !== "") parts.port = Number(parsed.port);
  try {
    if (parsed.username !== "") parts.user = decodeURIComponent(parsed.username);
    if (parsed.password !== "") parts.password = decodeURIComponent(parsed.password);
    const path = parsed.pathname;
    if (path !== "" && path !== "/") parts.database = decodeURIComponent(path.slice(1));
  } catch {
    throw bad("malformed percent-encoding in the credentials or the database name");
  }
  if (parts.database !== undefined && parts.database.includes("/")) throw bad("the path is one database name");
  if (parsed.hash !== "") throw bad("a fragment (#...) is not part of a Postgres URL");
  for (const [name, value] of parsed.searchParams) {
    if (!PARAMS.has(name)) throw bad(`unknown parameter ${JSON.stringify(name)} (supported: ${[...PARAMS].join(", ")})`);
    if (name === "sslmode") {
      if (!(SSL_MODES as readonly string[]).includes(value)) throw bad(`sslmode must be one of ${SSL_MODES.join(", ")}, not ${JSON.stringify(value)}`);
      parts.sslmode = value as SslMode;
    } else if (name === "application_name") parts.applicationName = value;
    else if (name === "connect_timeout") {
      // libpq: seconds, 0 means wait forever; we take a positive number of seconds only.
      if (!/^\d+$/.test(value) || Number(value) <= 0) throw bad(`connect_timeout is a positive number of seconds, not ${JSON.stringify(value)}`);
      parts.connectTimeoutMs = Number(value) * 1000;
    } else parts.options = value;
  }
  return parts;
}
