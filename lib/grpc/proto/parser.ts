// A recursive-descent parser for the proto3 subset keel's gRPC speaks: syntax, package, import,
// option, message (nested messages and enums, oneof, map, optional, repeated, reserved), enum
// and service. It checks what can be checked within one file (field numbers, clashes, the first
// enum value being 0); type names are resolved later by the linker, across files.
import type { OptionValue } from "./descriptors.js";
import { MAP_KEY_TYPES } from "./descriptors.js";
import { ProtoParseError } from "./errors.js";
import type {
  EnumNode, FieldNode, MessageNode, MethodNode, MutableOptions, Position, ProtoFileNode, ReservedRange, ServiceNode,
} from "./syntax-tree.js";
import { tokenize, type Token } from "./tokenizer.js";

export const MAX_FIELD_NUMBER = 536_870_911; // 2^29 - 1
const RESERVED_BY_PROTOBUF = { from: 19_000, to: 19_999 };
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** Parse one .proto source. `file` names it in error messages (`file:line:col: ...`). */
export function parseProto(source: string, file = "<input>"): ProtoFileNode {
  return new Parser(tokenize(source, file), file).parseFile();
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: Token[], private readonly file: string) {}

  // ---- token helpers -------------------------------------------------------------------------

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== "eof") this.index++;
    return t;
  }

  private fail(reason: string, at: Position = this.peek()): never {
    throw new ProtoParseError(reason, { file: this.file, line: at.line, col: at.col });
  }

  private describe(t: Token): string {
    return t.kind === "eof" ? "end of file" : t.kind === "string" ? JSON.stringify(t.text) : `"${t.text}"`;
  }

  private isSymbol(s: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "symbol" && t.text === s;
  }

  private isKeyword(word: string): boolean {
    const t = this.peek();
    return t.kind === "ident" && t.text === word;
  }

  private expectSymbol(s: string): Token {
    const t = this.peek();
    if (t.kind !== "symbol" || t.text !== s) this.fail(`expected "${s}" but found ${this.describe(t)}`);
    return this.next();
  }

  private expectKeyword(word: string): Token {
    if (!this.isKeyword(word)) this.fail(`expected "${word}" but found ${this.describe(this.peek())}`);
    return this.next();
  }

  private expectIdent(what: string): Token {
    const t = this.peek();
    if (t.kind !== "ident") this.fail(`expected ${what} but found ${this.describe(t)}`);
    return this.next();
  }

  /** One or more adjacent string literals, joined. */
  private expectString(what: string): string {
    if (this.peek().kind !== "string") this.fail(`expected ${what} (a string literal) but found ${this.describe(this.peek())}`);
    let s = "";
    while (this.peek().kind === "string") s += this.next().text;
    return s;
  }

  /** `ident { "." ident }` */
  private fullIdent(what: string): string {
    let name = this.expectIdent(what).text;
    while (this.isSymbol(".")) {
      this.next();
      name += "." + this.expectIdent(what).text;
    }
    return name;
  }

  /** A type reference: `[.] ident { . ident }`. */
  private typeName(): string {
    let prefix = "";
    if (this.isSymbol(".")) {
      this.next();
      prefix = ".";
    }
    return prefix + this.fullIdent("a type name");
  }

  private integer(what: string): number {
    let sign = 1;
    const start = this.peek();
    if (this.isSymbol("-") || this.isSymbol("+")) sign = this.next().text === "-" ? -1 : 1;
    const t = this.peek();
    if (t.kind !== "int") this.fail(`expected ${what} (an integer) but found ${this.describe(t)}`, start);
    this.next();
    const value = sign * integerValue(t.text);
    if (!Number.isSafeInteger(value)) this.fail(`${what} ${t.text} is out of range`, start);
    return value;
  }

  // ---- file level ----------------------------------------------------------------------------

  parseFile(): ProtoFileNode {
    const file: ProtoFileNode = { file: this.file, package: "", imports: [], options: Object.create(null) as MutableOptions, messages: [], enums: [], services: [] };
    const scope = new Scope();
    if (this.isKeyword("edition")) this.fail('editions are not supported; use syntax = "proto3"');
    if (!this.isKeyword("syntax")) this.fail('expected syntax = "proto3"; at the start of the file');
    this.next();
    this.expectSymbol("=");
    const syntaxAt = this.peek();
    const syntax = this.expectString("the syntax");
    if (syntax !== "proto3") this.fail(`only proto3 is supported, not ${JSON.stringify(syntax)}`, syntaxAt);
    this.expectSymbol(";");
    let sawPackage = false;
    while (this.peek().kind !== "eof") {
      const t = this.peek();
      if (this.isSymbol(";")) {
        this.next();
      } else if (this.isKeyword("import")) {
        this.next();
        let modifier: "none" | "public" | "weak" = "none";
        if (this.isKeyword("public") || this.isKeyword("weak")) modifier = this.next().text as "public" | "weak";
        const path = this.expectString("an import path");
        this.expectSymbol(";");
        file.imports.push({ path, modifier, at: t });
      } else if (this.isKeyword("package")) {
        if (sawPackage) this.fail("a file may declare only one package");
        sawPackage = true;
        this.next();
        file.package = this.fullIdent("a package name");
        this.expectSymbol(";");
      } else if (this.isKeyword("option")) {
        this.optionStatement(file.options);
      } else if (this.isKeyword("message")) {
        file.messages.push(this.message(scope));
      } else if (this.isKeyword("enum")) {
        file.enums.push(this.enumeration(scope));
      } else if (this.isKeyword("service")) {
        file.services.push(this.service(scope));
      } else if (this.isKeyword("extend")) {
        this.fail("extensions are not supported in proto3 (except custom options, which are not supported either)");
      } else {
        this.fail(`unexpected ${this.describe(t)} at the top level`);
      }
    }
    return file;
  }

  // ---- options -------------------------------------------------------------------------------

  /** `option name = constant;` */
  private optionStatement(into: MutableOptions): void {
    this.expectKeyword("option");
    this.optionAssignment(into);
    this.expectSymbol(";");
  }

  /** `name = constant`, where name may be `(custom.ext).field`. */
  private optionAssignment(into: MutableOptions): void {
    let name = "";
    if (this.isSymbol("(")) {
      this.next();
      name = "(" + this.typeName() + ")";
      this.expectSymbol(")");
    } else {
      name = this.expectIdent("an option name").text;
    }
    while (this.isSymbol(".")) {
      this.next();
      if (this.isSymbol("(")) {
        this.next();
        name += ".(" + this.typeName() + ")";
        this.expectSymbol(")");
      } else {
        name += "." + this.expectIdent("an option name").text;
      }
    }
    this.expectSymbol("=");
    into[name] = this.constant();
  }

  private constant(): OptionValue {
    const t = this.peek();
    if (t.kind === "string") return this.expectString("a value");
    if (this.isSymbol("{")) return { aggregate: this.aggregate() };
    if (t.kind === "ident") {
      if (t.text === "true" || t.text === "false") {
        this.next();
        return t.text === "true";
      }
      if (t.text === "inf" || t.text === "nan") {
        this.next();
        return t.text === "inf" ? Infinity : NaN;
      }
      return this.fullIdent("a value");
    }
    let sign = 1;
    if (this.isSymbol("-") || this.isSymbol("+")) sign = this.next().text === "-" ? -1 : 1;
    const n = this.next();
    if (n.kind === "int") {
      const v = sign * integerValue(n.text);
      return Number.isSafeInteger(v) ? v : (sign < 0 ? "-" : "") + BigInt(n.text.replace(/^0(?=[0-7])/, "0o")).toString();
    }
    if (n.kind === "float") return sign * Number(n.text);
    if (n.kind === "ident" && (n.text === "inf" || n.text === "nan")) return n.text === "inf" ? sign * Infinity : NaN;
    return this.fail(`expected a constant but found ${this.describe(n)}`, n);
  }

  /** A message literal `{ ... }` in an option: kept as its source tokens, not interpreted. */
  private aggregate(): string {
    const open = this.expectSymbol("{");
    const parts: string[] = [];
    let depth = 1;
    while (depth > 0) {
      const t = this.next();
      if (t.kind === "eof") this.fail("unterminated aggregate option value", open);
      if (t.kind === "symbol" && (t.text === "{" || t.text === "<")) depth++;
      if (t.kind === "symbol" && (t.text === "}" || t.text === ">")) depth--;
      if (depth > 0) parts.push(t.kind === "string" ? JSON.stringify(t.text) : t.text);
    }
    return parts.join(" ");
  }

  /** `[a = 1, (b).c = "x"]` after a field or enum value; none gives an empty object. */
  private bracketOptions(): MutableOptions {
    const options = Object.create(null) as MutableOptions;
    if (!this.isSymbol("[")) return options;
    this.next();
    do this.optionAssignment(options);
    while (this.isSymbol(",") && this.next());
    this.expectSymbol("]");
    return options;
  }

  // ---- messages ------------------------------------------------------------------------------

  private message(parent: Scope): MessageNode {
    const at = this.expectKeyword("message");
    const nameToken = this.expectIdent("a message name");
    parent.declare(nameToken.text, nameToken, this);
    const msg: MessageNode = {
      name: nameToken.text, fields: [], oneofs: [], messages: [], enums: [], reservedRanges: [], reservedNames: [],
      options: Object.create(null) as MutableOptions, at,
    };
    const scope = new Scope();
    this.expectSymbol("{");
    while (!this.isSymbol("}")) {
      const t = this.peek();
      if (t.kind === "eof") this.fail(`unterminated message "${msg.name}"`, at);
      if (this.isSymbol(";")) this.next();
      else if (this.isKeyword("option")) this.optionStatement(msg.options);
      else if (this.isKeyword("message") && this.peek(1).kind === "ident") msg.messages.push(this.message(scope));
      else if (this.isKeyword("enum") && this.peek(1).kind === "ident") msg.enums.push(this.enumeration(scope));
      else if (this.isKeyword("reserved")) this.reserved(msg.reservedRanges, msg.reservedNames, 1, MAX_FIELD_NUMBER);
      else if (this.isKeyword("oneof") && this.peek(1).kind === "ident") this.oneof(msg, scope);
      else if (this.isKeyword("map") && this.isSymbol("<", 1)) msg.fields.push(this.mapField(scope));
      else if (this.isKeyword("extensions") || this.isKeyword("extend")) this.fail("extensions are not supported in proto3");
      else if (this.isKeyword("required")) this.fail("required fields are not allowed in proto3");
      else if (this.isKeyword("group")) this.fail("groups are not allowed in proto3");
      else msg.fields.push(this.field(scope, undefined));
    }
    this.next();
    this.checkMessage(msg);
    return msg;
  }

  private field(scope: Scope, oneof: string | undefined): FieldNode {
    const at = this.peek();
    let label: FieldNode["label"] = "implicit";
    // `optional` / `repeated` are labels only when a type and a name follow (a type may be named "optional").
    const labelled = (this.isKeyword("optional") || this.isKeyword("repeated")) &&
      (this.isSymbol(".", 1) || (this.peek(1).kind === "ident" && (this.peek(2).kind === "ident" || this.isSymbol(".", 2))));
    if (labelled) {
      if (oneof !== undefined) this.fail(`fields in oneof "${oneof}" cannot be ${this.peek().text}`);
      label = this.next().text as "optional" | "repeated";
    }
    const typeAt = this.peek();
    const typeName = this.typeName();
    const { nameToken, number, options } = this.fieldRest(scope);
    if ("packed" in options && (label !== "repeated" || typeName === "string" || typeName === "bytes")) {
      this.fail("[packed] applies only to repeated scalar or enum fields", nameToken);
    }
    return oneof === undefined
      ? { name: nameToken.text, number, label, typeName, options, at, typeAt }
      : { name: nameToken.text, number, label, typeName, oneof, options, at, typeAt };
  }

  /** What follows a field's type: `name = number [options];`, the name declared in `scope`. */
  private fieldRest(scope: Scope): { nameToken: Token; number: number; options: ReturnType<Parser["bracketOptions"]> } {
    const nameToken = this.expectIdent("a field name");
    this.expectSymbol("=");
    const number = this.fieldNumber();
    const options = this.bracketOptions();
    this.expectSymbol(";");
    scope.declare(nameToken.text, nameToken, this);
    checkJsSafe(nameToken, this);
    return { nameToken, number, options };
  }

  private fieldNumber(): number {
    const at = this.peek();
    const n = this.integer("a field number");
    if (n < 1 || n > MAX_FIELD_NUMBER) this.fail(`field number ${n} is out of range (1 to ${MAX_FIELD_NUMBER})`, at);
    if (n >= RESERVED_BY_PROTOBUF.from && n <= RESERVED_BY_PROTOBUF.to) this.fail(`field numbers 19000 to 19999 are reserved by protobuf (got ${n})`, at);
    return n;
  }

  private mapField(scope: Scope): FieldNode {
    const at = this.expectKeyword("map");
    this.expectSymbol("<");
    const keyAt = this.peek();
    const mapKey = this.expectIdent("a map key type").text;
    if (!MAP_KEY_TYPES.has(mapKey)) this.fail(`invalid map key type "${mapKey}" (integral types, bool and string only)`, keyAt);
    this.expectSymbol(",");
    const typeAt = this.peek();
    if (this.isKeyword("map")) this.fail("map values cannot be maps");
    const typeName = this.typeName();
    this.expectSymbol(">");
    const { nameToken, number, options } = this.fieldRest(scope);
    return { name: nameToken.text, number, label: "map", typeName, mapKey, options, at, typeAt };
  }

  private oneof(msg: MessageNode, scope: Scope): void {
    this.expectKeyword("oneof");
    const nameToken = this.expectIdent("a oneof name");
    scope.declare(nameToken.text, nameToken, this);
    checkJsSafe(nameToken, this);
    const options = Object.create(null) as MutableOptions;
    this.expectSymbol("{");
    let members = 0;
    while (!this.isSymbol("}")) {
      if (this.peek().kind === "eof") this.fail(`unterminated oneof "${nameToken.text}"`, nameToken);
      if (this.isSymbol(";")) this.next();
      else if (this.isKeyword("option")) this.optionStatement(options);
      else if (this.isKeyword("map") && this.isSymbol("<", 1)) this.fail("map fields cannot be in a oneof");
      else {
        msg.fields.push(this.field(scope, nameToken.text));
        members++;
      }
    }
    this.next();
    if (members === 0) this.fail(`oneof "${nameToken.text}" has no fields`, nameToken);
    msg.oneofs.push({ name: nameToken.text, at: nameToken, options });
  }

  /** `reserved 2, 15, 9 to 11, 40 to max;` or `reserved "foo", "bar";` */
  private reserved(ranges: ReservedRange[], names: string[], min: number, max: number): void {
    this.expectKeyword("reserved");
    if (this.peek().kind === "string") {
      do {
        const at = this.peek();
        const name = this.expectString("a reserved name");
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) this.fail(`reserved name ${JSON.stringify(name)} is not an identifier`, at);
        names.push(name);
      } while (this.isSymbol(",") && this.next());
    } else {
      do {
        const at = this.peek();
        const from = this.integer("a reserved number");
        let to = from;
        if (this.isKeyword("to")) {
          this.next();
          if (this.isKeyword("max")) {
            this.next();
            to = max;
          } else {
            to = this.integer("a reserved number");
          }
        }
        if (from < min || to > max || from > to) this.fail(`invalid reserved range ${from} to ${to}`, at);
        ranges.push({ from, to });
      } while (this.isSymbol(",") && this.next());
    }
    this.expectSymbol(";");
  }

  /** Numbers and names unique, none reserved. */
  private checkMessage(msg: MessageNode): void {
    const numbers = new Map<number, string>();
    for (const f of msg.fields) {
      const other = numbers.get(f.number);
      if (other !== undefined) this.fail(`field number ${f.number} is used by both "${other}" and "${f.name}"`, f.at);
      numbers.set(f.number, f.name);
      if (msg.reservedRanges.some((r) => f.number >= r.from && f.number <= r.to)) this.fail(`field "${f.name}" uses reserved number ${f.number}`, f.at);
      if (msg.reservedNames.includes(f.name)) this.fail(`field name "${f.name}" is reserved`, f.at);
    }
  }

  // ---- enums ---------------------------------------------------------------------------------

  private enumeration(parent: Scope): EnumNode {
    const at = this.expectKeyword("enum");
    const nameToken = this.expectIdent("an enum name");
    parent.declare(nameToken.text, nameToken, this);
    const node: EnumNode = { name: nameToken.text, values: [], reservedRanges: [], reservedNames: [], options: Object.create(null) as MutableOptions, at };
    this.expectSymbol("{");
    while (!this.isSymbol("}")) {
      if (this.peek().kind === "eof") this.fail(`unterminated enum "${node.name}"`, at);
      if (this.isSymbol(";")) this.next();
      else if (this.isKeyword("option")) this.optionStatement(node.options);
      else if (this.isKeyword("reserved")) this.reserved(node.reservedRanges, node.reservedNames, INT32_MIN, INT32_MAX);
      else {
        const valueToken = this.expectIdent("an enum value name");
        this.expectSymbol("=");
        const numberAt = this.peek();
        const number = this.integer("an enum value");
        if (number < INT32_MIN || number > INT32_MAX) this.fail(`enum value ${number} is outside int32`, numberAt);
        const options = this.bracketOptions();
        this.expectSymbol(";");
        // Enum values are siblings of their enum (C++ scoping), so they share the parent's names.
        parent.declare(valueToken.text, valueToken, this);
        node.values.push({ name: valueToken.text, number, options, at: valueToken });
      }
    }
    this.next();
    const first = node.values[0];
    if (first === undefined) this.fail(`enum "${node.name}" has no values`, at);
    if (first.number !== 0) this.fail(`the first value of enum "${node.name}" must be 0 in proto3`, first.at);
    const seen = new Map<number, string>();
    for (const v of node.values) {
      const other = seen.get(v.number);
      if (other !== undefined && node.options["allow_alias"] !== true) this.fail(`"${v.name}" reuses value ${v.number} of "${other}" (set option allow_alias = true)`, v.at);
      seen.set(v.number, v.name);
      if (node.reservedRanges.some((r) => v.number >= r.from && v.number <= r.to)) this.fail(`enum value "${v.name}" uses reserved number ${v.number}`, v.at);
      if (node.reservedNames.includes(v.name)) this.fail(`enum value name "${v.name}" is reserved`, v.at);
    }
    return node;
  }

  // ---- services ------------------------------------------------------------------------------

  private service(parent: Scope): ServiceNode {
    const at = this.expectKeyword("service");
    const nameToken = this.expectIdent("a service name");
    parent.declare(nameToken.text, nameToken, this);
    const node: ServiceNode = { name: nameToken.text, methods: [], options: Object.create(null) as MutableOptions, at };
    const methods = new Scope();
    this.expectSymbol("{");
    while (!this.isSymbol("}")) {
      if (this.peek().kind === "eof") this.fail(`unterminated service "${node.name}"`, at);
      if (this.isSymbol(";")) this.next();
      else if (this.isKeyword("option")) this.optionStatement(node.options);
      else if (this.isKeyword("rpc")) node.methods.push(this.method(methods));
      else this.fail(`expected "rpc" or "option" in service "${node.name}" but found ${this.describe(this.peek())}`);
    }
    this.next();
    return node;
  }

  private method(scope: Scope): MethodNode {
    const at = this.expectKeyword("rpc");
    const nameToken = this.expectIdent("a method name");
    scope.declare(nameToken.text, nameToken, this);
    const side = (): [string, boolean, Position] => {
      this.expectSymbol("(");
      let stream = false;
      // `stream` is a modifier only when a type name follows it.
      if (this.isKeyword("stream") && !this.isSymbol(")", 1)) {
        this.next();
        stream = true;
      }
      const typeAt = this.peek();
      const type = this.typeName();
      this.expectSymbol(")");
      return [type, stream, typeAt];
    };
    const [requestType, requestStream, requestAt] = side();
    this.expectKeyword("returns");
    const [responseType, responseStream, responseAt] = side();
    const options = Object.create(null) as MutableOptions;
    if (this.isSymbol("{")) {
      this.next();
      while (!this.isSymbol("}")) {
        if (this.peek().kind === "eof") this.fail(`unterminated rpc "${nameToken.text}"`, at);
        if (this.isSymbol(";")) this.next();
        else this.optionStatement(options);
      }
      this.next();
      if (this.isSymbol(";")) this.next();
    } else {
      this.expectSymbol(";");
    }
    return { name: nameToken.text, requestType, responseType, requestStream, responseStream, options, at, requestAt, responseAt };
  }

  /** For Scope: report a clash at the token. */
  clash(name: string, at: Position): never {
    return this.fail(`"${name}" is already defined in this scope`, at);
  }

  reject(reason: string, at: Position): never {
    return this.fail(reason, at);
  }
}

/** Names declared directly in one message, file or service: they must not repeat. */
class Scope {
  private readonly names = new Set<string>();

  declare(name: string, at: Position, parser: Parser): void {
    if (this.names.has(name)) parser.clash(name, at);
    this.names.add(name);
  }
}

/** Property names that would change an object's prototype instead of setting a field. */
function checkJsSafe(token: Token, parser: Parser): void {
  if (token.text === "__proto__") parser.reject('"__proto__" cannot be used as a field or oneof name', token);
}

/** The value of an int token: decimal, 0x hex or 0-prefixed octal. */
function integerValue(text: string): number {
  if (/^0[xX]/.test(text)) return parseInt(text.slice(2), 16);
  if (text.length > 1 && text[0] === "0") return parseInt(text.slice(1), 8);
  return Number(text);
}
