// A URL's credentials out of a message or a log line: everything between the scheme and the last
// `@` becomes `***`. The last `@`, not the first: a password with an unencoded `@`, `/` or `?`
// would otherwise leave its tail in view (and a value that is not a URL at all loses at most some
// text before an `@`, never shows more).

/** `scheme://user:password@host/...` → `scheme://***@host/...`; unchanged without an `@`. */
export function redactUrlCredentials(url: string): string {
  const at = url.lastIndexOf("@");
  if (at === -1) return url;
  const scheme = url.indexOf("://");
  const from = scheme !== -1 && scheme < at ? scheme + 3 : 0;
  return `${url.slice(0, from)}***${url.slice(at)}`;
}
