// How the kernel knows HTML that is safe to send as is (keel/web's SafeHtml: its markup`` tag and
// raw()) without knowing the class that made it: the value carries its markup under this symbol.
// A symbol cannot come out of JSON or a form, and an object that merely has a toString() or an
// `html` property does not carry it, so a look-alike is never sent as HTML. A registered symbol
// (as endOnDrain and asApiError are), so SafeHtml made by another copy of keel (a vendored file
// beside the package) is recognised too.
export const HTML_BRAND: unique symbol = Symbol.for("keel.html") as never;

/** A value that holds HTML safe to send as is: its markup under `HTML_BRAND`. */
export interface BrandedHtml {
  readonly [HTML_BRAND]: string;
}

/** The markup of a branded value, or undefined for anything else (strings included). */
export function brandedHtml(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const html = (value as { [HTML_BRAND]?: unknown })[HTML_BRAND];
  return typeof html === "string" ? html : undefined;
}
