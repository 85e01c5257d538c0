// messages(): 422 field messages in the client's language. It installs the kernel's one error hook
// (`app.runtime.localize`), which runs only when an error reply is made: a request that succeeds
// does nothing more than without it, and Accept-Language is read only for an error with fields
// and only when a catalogue other than English is registered.
import type { IncomingMessage } from "node:http";
import { ApiError, type App } from "../index.js";
import { defined, selectLanguage } from "../plugin.js";
import { CompiledCatalogue, checkLanguageTag, type MessageCatalogue } from "./catalogue.js";

export interface MessagesOptions {
  /** Catalogues by language tag (`de`, `pt-BR`); `en` changes English texts. Keys left out stay English. */
  catalogues?: Readonly<Record<string, MessageCatalogue>>;
  /**
   * Answer every 422 in this language, whatever the client asks (Accept-Language is not read).
   * Default: chosen per request from Accept-Language among `en` and the catalogues' tags.
   */
  locale?: string;
}

const ENGLISH = "en";

/**
 * The plugin: `app.register(messages({ catalogues: { de } }))`. Catalogues are checked here
 * (unknown keys, parameters a key does not have, template syntax): a mistake fails startup.
 *
 * @see docs/features/messages.md
 */
export function messages(options: MessagesOptions = {}): (app: App) => void {
  const compiled = new Map<string, CompiledCatalogue>();
  /** Tags as the app wrote them, for Content-Language (`pt-BR`; matching is on lowercase). */
  const written = new Map<string, string>([[ENGLISH, ENGLISH]]);
  const given = Object.entries(options.catalogues ?? {}).map(([tag, catalogue]) => [checkLanguageTag(tag, "catalogue tag"), tag, catalogue] as const);
  // Parents first, so `de-ch` starts from what `de` says.
  given.sort((a, b) => a[0].length - b[0].length);
  for (const [tag, original, catalogue] of given) {
    if (compiled.has(tag)) throw new TypeError(`keel/messages: two catalogues for ${original}`);
    let own: CompiledCatalogue;
    try {
      own = new CompiledCatalogue(tag);
    } catch (error) {
      throw new TypeError(`keel/messages: ${original}: ${(error as Error).message}`);
    }
    for (let cut = tag.lastIndexOf("-"); cut > 0; cut = tag.lastIndexOf("-", cut - 1)) {
      const parent = compiled.get(tag.slice(0, cut));
      if (parent !== undefined) {
        for (const [key, template] of parent.templates) own.templates.set(key, template);
        break;
      }
    }
    own.add(original, catalogue);
    compiled.set(tag, own);
    written.set(tag, original);
  }
  const tags = [ENGLISH, ...[...compiled.keys()].filter((t) => t !== ENGLISH)];
  let fixed: string | undefined;
  if (options.locale !== undefined) {
    const wanted = checkLanguageTag(options.locale, "locale");
    fixed = selectLanguage(wanted, tags);
    if (fixed === undefined) throw new TypeError(`keel/messages: locale ${JSON.stringify(options.locale)} has no catalogue (there are: ${tags.join(", ")})`);
  } else if (tags.length === 1) fixed = ENGLISH;

  const translate = (err: ApiError, req: IncomingMessage): ApiError => {
    const fields = err.fields;
    if (fields === undefined) return err;
    const tag = fixed ?? selectLanguage(req.headers["accept-language"], tags) ?? ENGLISH;
    const catalogue = compiled.get(tag);
    const headers: Record<string, string> = { ...err.headers, "content-language": written.get(tag)! };
    if (fixed === undefined) headers["vary"] = err.headers?.["vary"] === undefined ? "Accept-Language" : `${err.headers["vary"]}, Accept-Language`;
    const translated = catalogue === undefined ? fields : fields.map((f) => ({ ...f, message: catalogue.field(f.code, f.message) }));
    const message = catalogue === undefined ? err.message : catalogue.message(err.message);
    return new ApiError(err.status, err.type, message, defined({ fields: translated, headers, detail: err.detail, cause: err.cause }));
  };
  // The kernel calls this while it makes an error reply, which must not throw: an error here
  // (a template that cannot render a value) leaves the English answer as it was.
  const localize = (err: ApiError, req: IncomingMessage): ApiError => {
    try {
      return translate(err, req);
    } catch {
      return err;
    }
  };
  return (app) => {
    if (app.runtime.localize !== null) throw new TypeError("keel/messages: messages() is registered on this app already");
    app.runtime.localize = localize;
  };
}
