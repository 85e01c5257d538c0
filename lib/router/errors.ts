/**
 * Router errors.
 *
 * `RouteError` is thrown while routes are being registered (startup), never while a request
 * is matched. `BadPathError` is thrown by `Router.find` when the request path matched the
 * route structure but a parameter value is unusable; the app answers 400 with its message.
 */

/** A route declaration is malformed or conflicts with another one. */
export class RouteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RouteError";
  }
}

/** Why a request path was refused by the router. */
export type BadPathReason = "bad_encoding" | "param_too_long";

/** A request path whose parameter value cannot be used (invalid percent-encoding, too long). */
export class BadPathError extends Error {
  readonly reason: BadPathReason;
  /** Name of the offending parameter (`*` for an anonymous wildcard). */
  readonly param: string;

  constructor(reason: BadPathReason, param: string, message?: string) {
    super(message ?? defaultBadPathMessage(reason, param));
    this.name = "BadPathError";
    this.reason = reason;
    this.param = param;
  }
}

function defaultBadPathMessage(reason: BadPathReason, param: string): string {
  return reason === "bad_encoding"
    ? `path parameter "${param}" has invalid percent-encoding`
    : `path parameter "${param}" is too long`;
}
