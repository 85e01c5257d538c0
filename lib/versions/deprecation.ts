// Deprecation (RFC 9745) and Sunset (RFC 8594) headers of a deprecated version, formatted once.
import type { Reply } from "../index.js";

export interface Deprecation {
  /** When the version was (or will be) deprecated: `Deprecation: @<unix seconds>` (RFC 9745). */
  date: Date;
  /** A page about the deprecation: `Link: <url>; rel="deprecation"`. */
  link?: string;
  /** When the version stops answering: `Sunset: <HTTP-date>` (RFC 8594). */
  sunset?: Date;
  /** A page about the sunset: `Link: <url>; rel="sunset"`. */
  sunsetLink?: string;
}

/** The header values a deprecated version adds to every answer, computed at startup. */
export interface DeprecationHeaders {
  readonly deprecation: string;
  readonly sunset: string | null;
  readonly link: string | null;
}

function validDate(d: unknown, what: string): Date {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new TypeError(`${what} must be a valid Date`);
  return d;
}

function linkTarget(url: string, what: string): string {
  // The value goes inside <...> of a header: no angle brackets, controls or spaces.
  if (!/^[!#-;=?-~]+$/.test(url)) throw new TypeError(`${what} must be a URI without spaces, controls or angle brackets, got ${JSON.stringify(url)}`);
  return url;
}

export function deprecationHeaders(version: string, d: Deprecation): DeprecationHeaders {
  const where = `version ${JSON.stringify(version)}`;
  // RFC 9745 §2.1: an sf-date, "@" then the seconds since the epoch (RFC 9651 §3.3.7).
  const deprecation = `@${Math.floor(validDate(d.date, `${where}: deprecated.date`).getTime() / 1000)}`;
  // RFC 8594 §3: an HTTP-date, which toUTCString writes as IMF-fixdate.
  const sunset = d.sunset === undefined ? null : validDate(d.sunset, `${where}: deprecated.sunset`).toUTCString();
  const links: string[] = [];
  if (d.link !== undefined) links.push(`<${linkTarget(d.link, `${where}: deprecated.link`)}>; rel="deprecation"; type="text/html"`);
  if (d.sunsetLink !== undefined) links.push(`<${linkTarget(d.sunsetLink, `${where}: deprecated.sunsetLink`)}>; rel="sunset"; type="text/html"`);
  return { deprecation, sunset, link: links.length === 0 ? null : links.join(", ") };
}

/** Join `value` to a list header the reply may already carry (Link, Vary). */
export function appendHeader(reply: Reply, name: string, value: string): void {
  const old = reply.headers[name];
  reply.headers[name] = old === undefined ? value : Array.isArray(old) ? [...old, value].join(", ") : `${String(old)}, ${value}`;
}

export function addDeprecation(reply: Reply, h: DeprecationHeaders): Reply {
  reply.headers["deprecation"] = h.deprecation;
  if (h.sunset !== null) reply.headers["sunset"] = h.sunset;
  if (h.link !== null) appendHeader(reply, "link", h.link);
  return reply;
}
