// Catalogues compiled at registration, and the translation of one field message: read the key and
// parameters back from the English text (english.ts), render the locale's template. A message
// that is not one of keel's English texts (an `x-message`, a `.refine()` text, a Standard Schema
// library's own words) is left as it is, as is one whose key the catalogue lacks.
import { ENGLISH_PATTERNS, englishMessages, type MessageKey } from "./english.js";
import { compileTemplate, renderTemplate, type Template } from "./template.js";

/** A locale's texts: message key to template; keys left out fall back to English. Plain data. */
export type MessageCatalogue = Readonly<Partial<Record<MessageKey, string>>>;

const KEYS = new Set<string>(Object.keys(englishMessages));

/** Field code -> the message keys written under it (`length` -> length.min, length.max). */
const BY_CODE = new Map<string, MessageKey[]>();
for (const key of Object.keys(englishMessages) as MessageKey[]) {
  if (key === "validation_error" || key.startsWith("types.")) continue;
  const code = key.split(".")[0]!;
  let list = BY_CODE.get(code);
  if (list === undefined) BY_CODE.set(code, (list = []));
  list.push(key);
}

/** English type words back to JSON type names ("a string" -> "string"). */
const TYPE_NAMES = new Map<string, string>();
for (const key of Object.keys(englishMessages) as MessageKey[]) {
  if (key.startsWith("types.") && key !== "types.or") TYPE_NAMES.set(englishMessages[key], key.slice(6));
}

const ENGLISH_TEMPLATES = new Map<string, Template>();
for (const key of Object.keys(englishMessages) as MessageKey[]) ENGLISH_TEMPLATES.set(key, compileTemplate(englishMessages[key]));

/** Language tags as catalogues are named: `de`, `pt-BR`, `zh-Hant-TW` (compared lowercase). */
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

export function checkLanguageTag(tag: string, what: string): string {
  if (!LANGUAGE_TAG.test(tag)) throw new TypeError(`keel/messages: ${what} ${JSON.stringify(tag)} is not a language tag (such as "de" or "pt-BR")`);
  return tag.toLowerCase();
}

/** One locale's compiled templates, its own keys over those of its parent tags (`de-ch` over `de`). */
export class CompiledCatalogue {
  readonly templates = new Map<string, Template>();
  readonly plural: Intl.PluralRules;

  constructor(readonly tag: string) {
    this.plural = new Intl.PluralRules(tag);
  }

  add(tag: string, catalogue: MessageCatalogue): void {
    if (typeof catalogue !== "object" || catalogue === null) throw new TypeError(`keel/messages: the catalogue of ${tag} must be an object of message templates`);
    for (const [key, text] of Object.entries(catalogue)) {
      if (!KEYS.has(key)) throw new TypeError(`keel/messages: ${tag}: unknown message key ${JSON.stringify(key)} (the keys are in docs/features/messages.md)`);
      if (typeof text !== "string") throw new TypeError(`keel/messages: ${tag}: ${key} must be a string`);
      let template: Template;
      try {
        template = compileTemplate(text);
      } catch (error) {
        throw new TypeError(`keel/messages: ${tag}: ${key}: ${(error as Error).message}`);
      }
      const allowed = ENGLISH_TEMPLATES.get(key)!.params;
      for (const p of template.params) {
        if (!allowed.has(p)) throw new TypeError(`keel/messages: ${tag}: ${key} uses {${p}}, which it does not have (it has ${[...allowed].map((a) => `{${a}}`).join(", ") || "none"})`);
      }
      this.templates.set(key, template);
    }
  }

  /** The body's message in this locale, when it is keel's English default. */
  message(text: string): string {
    const template = this.templates.get("validation_error");
    return template !== undefined && text === englishMessages.validation_error ? renderTemplate(template, {}, this.plural) : text;
  }

  /** A field message in this locale, or `text` itself (see the top of this file). */
  field(code: string, text: string): string {
    const keys = BY_CODE.get(code);
    if (keys === undefined) return text;
    for (const key of keys) {
      const pattern = ENGLISH_PATTERNS[key];
      let params: Record<string, string>;
      if (pattern === undefined) {
        if (text !== englishMessages[key]) continue;
        params = {};
      } else {
        const m = pattern.re.exec(text);
        if (m === null) continue;
        params = {};
        pattern.params.forEach((name, i) => (params[name] = m[i + 1]!));
        if (key === "type" && (params["types"] = this.types(params["types"]!)) === "") continue;
      }
      const template = this.templates.get(key);
      return template === undefined ? text : renderTemplate(template, params, this.plural);
    }
    return text;
  }

  /** "a string or null" in this locale's words; "" when the English is not keel's. */
  private types(english: string): string {
    const words: string[] = [];
    for (const word of english.split(englishMessages["types.or"])) {
      const name = TYPE_NAMES.get(word);
      if (name === undefined) return "";
      const own = this.templates.get(`types.${name}`);
      words.push(own === undefined ? word : renderTemplate(own, {}, this.plural));
    }
    const or = this.templates.get("types.or");
    return words.join(or === undefined ? englishMessages["types.or"] : renderTemplate(or, {}, this.plural));
  }
}
