// Message templates: `{name}` is a parameter's text; `{name, plural, =0 {...} one {...} other {...}}`
// picks a branch by the number (exact `=N` first, then the locale's plural category from
// Intl.PluralRules, then `other`), where `#` is the number. The ICU MessageFormat subset
// translators know from FormatJS or i18next; compiled once, at registration, so a mistake in a
// catalogue fails startup instead of a 422. Numbers are written as the validator wrote them
// (`1000`, not `1,000`), so a message reads the same in every locale's digits.

type Part = string | { readonly name: string } | { readonly name: string; readonly branches: ReadonlyMap<string, readonly Part[]> };

export interface Template {
  readonly parts: readonly Part[];
  /** Parameter names the template uses. */
  readonly params: ReadonlySet<string>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SELECTOR = /^(?:=-?\d+(?:\.\d+)?|zero|one|two|few|many|other)$/;

class TemplateParser {
  private pos = 0;
  readonly params = new Set<string>();

  constructor(private readonly text: string) {}

  fail(why: string): never {
    throw new TypeError(`${why} at character ${this.pos} of ${JSON.stringify(this.text)}`);
  }

  /** Parts up to the end, or up to the `}` that closes a plural branch (`inBranch`). */
  parts(inBranch: boolean): Part[] {
    const out: Part[] = [];
    let literal = "";
    const s = this.text;
    while (this.pos < s.length) {
      const c = s[this.pos]!;
      if (c === "}") {
        if (!inBranch) this.fail("unmatched }");
        break;
      }
      if (c === "#" && inBranch) {
        if (literal !== "") out.push(literal);
        literal = "";
        out.push({ name: "#" });
        this.pos++;
      } else if (c === "{") {
        if (literal !== "") out.push(literal);
        literal = "";
        out.push(this.placeholder());
      } else {
        literal += c;
        this.pos++;
      }
    }
    if (inBranch && this.pos >= s.length) this.fail("unterminated plural branch");
    if (literal !== "") out.push(literal);
    return out;
  }

  private placeholder(): Part {
    const s = this.text;
    const close = s.indexOf("}", this.pos);
    const comma = s.indexOf(",", this.pos);
    if (close < 0) this.fail("unterminated {");
    const end = comma >= 0 && comma < close ? comma : close;
    const name = s.slice(this.pos + 1, end).trim();
    if (!NAME.test(name)) this.fail(`bad parameter name ${JSON.stringify(name)}`);
    this.params.add(name);
    if (end === close) {
      this.pos = close + 1;
      return { name };
    }
    const kindEnd = s.indexOf(",", comma + 1);
    if (kindEnd < 0 || s.slice(comma + 1, kindEnd).trim() !== "plural") this.fail(`only {${name}} and {${name}, plural, ...} are supported`);
    this.pos = kindEnd + 1;
    const branches = new Map<string, Part[]>();
    for (;;) {
      while (s[this.pos] === " ") this.pos++;
      if (s[this.pos] === "}") break;
      const open = s.indexOf("{", this.pos);
      if (open < 0) this.fail("unterminated plural");
      const selector = s.slice(this.pos, open).trim();
      if (!SELECTOR.test(selector)) this.fail(`bad plural selector ${JSON.stringify(selector)}`);
      this.pos = open + 1;
      branches.set(selector, this.parts(true));
      this.pos++; // the branch's }
    }
    if (!branches.has("other")) this.fail(`{${name}, plural, ...} needs an "other" branch`);
    this.pos++;
    return { name, branches };
  }
}

export function compileTemplate(text: string): Template {
  const parser = new TemplateParser(text);
  const parts = parser.parts(false);
  return { parts, params: parser.params };
}

/** Renders `template` with parameter texts; `plural` is the locale's rules (numbers from the texts). */
export function renderTemplate(template: Template, params: Readonly<Record<string, string>>, plural: Intl.PluralRules): string {
  return renderParts(template.parts, params, plural, "");
}

function renderParts(parts: readonly Part[], params: Readonly<Record<string, string>>, plural: Intl.PluralRules, hash: string): string {
  let out = "";
  for (const part of parts) {
    if (typeof part === "string") out += part;
    else if (part.name === "#") out += hash;
    else if (!("branches" in part)) out += params[part.name] ?? "";
    else {
      const text = params[part.name] ?? "";
      const n = Number(text);
      const branch = part.branches.get(`=${text}`) ?? (Number.isFinite(n) && text !== "" ? part.branches.get(plural.select(n)) : undefined) ?? part.branches.get("other")!;
      out += renderParts(branch, params, plural, text);
    }
  }
  return out;
}
