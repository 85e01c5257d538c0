// The route-config convention shared by content negotiation (keel/toon) and the OpenAPI
// generator (keel/openapi): a route declared with `config: { negotiated: true }` answers JSON or
// TOON by Accept. Kept here so neither feature imports the other.

/** What a negotiated operation documents for its successful responses, JSON first. */
export const NEGOTIATED_MEDIA_TYPES: readonly string[] = Object.freeze(["application/json", "application/toon"]);

/** True for a route declared with `config: { negotiated: true }`. */
export function isNegotiatedRoute(meta: { readonly config?: Readonly<Record<string, unknown>> | undefined } | undefined | null): boolean {
  return meta?.config?.["negotiated"] === true;
}
