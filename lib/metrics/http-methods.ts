// The request-method label: the methods HTTP defines keep their name, any other token becomes
// `_OTHER` (OpenTelemetry's rule), so a client inventing methods cannot create label values.

export const HTTP_METHODS: readonly string[] = Object.freeze(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "_OTHER"]);
export const OTHER_METHOD = HTTP_METHODS.length - 1;

/** The index of `method` in HTTP_METHODS (OTHER_METHOD for any method not listed). */
export function methodIndex(method: string): number {
  switch (method) {
    case "GET": return 0;
    case "HEAD": return 1;
    case "POST": return 2;
    case "PUT": return 3;
    case "DELETE": return 4;
    case "CONNECT": return 5;
    case "OPTIONS": return 6;
    case "TRACE": return 7;
    case "PATCH": return 8;
    default: return OTHER_METHOD;
  }
}
