// Turns parsed files into linked descriptors: every type name resolved by protobuf's scoping
// rules (innermost scope outwards; a leading dot means an absolute name), full names unique
// across all files, JavaScript property names chosen (camelCase like @grpc/proto-loader, or as
// written with `keepCase`).
import type {
  EnumType, FieldDescriptor, FieldLabel, MessageType, MethodDescriptor, OneofDescriptor, Options, ProtoRoot, ScalarType, ServiceDescriptor, ValueType,
} from "./descriptors.js";
import { SCALAR_TYPES } from "./descriptors.js";
import { ProtoParseError } from "./errors.js";
import type { EnumNode, MessageNode, Position, ProtoFileNode } from "./syntax-tree.js";

export interface LinkOptions {
  /** Keep field names as written instead of camelCasing them (default false, like proto-loader). */
  keepCase?: boolean;
}

type SymbolEntry =
  | { kind: "package" }
  | { kind: "message"; node: MessageNode; file: string; type: MutableMessage }
  | { kind: "enum"; node: EnumNode; file: string; type: EnumType }
  | { kind: "service"; file: string };

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer E)[] ? E[] : T[K] };
type MutableMessage = Mutable<MessageType> & { fields: FieldDescriptor[]; fieldsByNumber: FieldDescriptor[]; fieldOfNumber: Map<number, FieldDescriptor> };

/** `foo_bar_baz` → `fooBarBaz` (the first character is kept; the rule protobufjs applies). */
export function camelCase(name: string): string {
  return name.slice(0, 1) + name.slice(1).replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function join(scope: string, name: string): string {
  return scope === "" ? name : `${scope}.${name}`;
}

function fail(reason: string, file: string, at: Position): never {
  throw new ProtoParseError(reason, { file, line: at.line, col: at.col });
}

/** Link files (each file once; order does not matter) into one set of descriptors. */
export function linkProtoFiles(files: readonly ProtoFileNode[], options: LinkOptions = {}): ProtoRoot {
  const jsName = options.keepCase === true ? (n: string) => n : camelCase;
  const symbols = new Map<string, SymbolEntry>();
  const messages = new Map<string, MessageType>();
  const enums = new Map<string, EnumType>();
  const services = new Map<string, ServiceDescriptor>();

  const define = (fullName: string, entry: SymbolEntry, file: string, at: Position): void => {
    const existing = symbols.get(fullName);
    if (existing !== undefined && !(existing.kind === "package" && entry.kind === "package")) {
      fail(`"${fullName}" is already defined${"file" in existing ? ` in ${existing.file}` : " as a package"}`, file, at);
    }
    symbols.set(fullName, entry);
  };

  const defineEnum = (node: EnumNode, scope: string, file: string): void => {
    const fullName = join(scope, node.name);
    const numberOf = new Map<string, number>();
    const nameOf = new Map<number, string>();
    for (const v of node.values) {
      numberOf.set(v.name, v.number);
      if (!nameOf.has(v.number)) nameOf.set(v.number, v.name);
    }
    const type: EnumType = { kind: "enum", name: node.name, fullName, file, values: node.values.map((v) => ({ name: v.name, number: v.number, options: v.options })), numberOf, nameOf, options: node.options };
    define(fullName, { kind: "enum", node, file, type }, file, node.at);
    enums.set(fullName, type);
  };

  const defineMessage = (node: MessageNode, scope: string, file: string): void => {
    const fullName = join(scope, node.name);
    const type: MutableMessage = { kind: "message", name: node.name, fullName, file, fields: [], fieldsByNumber: [], fieldOfNumber: new Map(), oneofs: [], options: node.options };
    define(fullName, { kind: "message", node, file, type }, file, node.at);
    messages.set(fullName, type);
    for (const nested of node.messages) defineMessage(nested, fullName, file);
    for (const nested of node.enums) defineEnum(nested, fullName, file);
  };

  // 1. Every name, so references can point forwards and across files.
  for (const f of files) {
    const parts = f.package === "" ? [] : f.package.split(".");
    for (let i = 1; i <= parts.length; i++) define(parts.slice(0, i).join("."), { kind: "package" }, f.file, { line: 1, col: 1 });
    for (const m of f.messages) defineMessage(m, f.package, f.file);
    for (const e of f.enums) defineEnum(e, f.package, f.file);
    for (const s of f.services) define(join(f.package, s.name), { kind: "service", file: f.file }, f.file, s.at);
  }

  /** Resolve `name` as seen from inside `scope` (a package or message full name). */
  const resolve = (name: string, scope: string, file: string, at: Position): MutableMessage | EnumType => {
    let found: SymbolEntry | undefined;
    let fullName = name.slice(1);
    if (name.startsWith(".")) {
      found = symbols.get(fullName);
    } else {
      const first = name.split(".", 1)[0]!;
      for (let s: string | undefined = scope; s !== undefined; s = s === "" ? undefined : s.slice(0, Math.max(0, s.lastIndexOf(".")))) {
        if (!symbols.has(join(s, first))) continue;
        fullName = join(s, name);
        found = symbols.get(fullName);
        // protoc: once the first part is found, the rest must be inside it (no further outwards search).
        if (found === undefined) fail(`"${name}" resolved to "${fullName}", which is not defined`, file, at);
        break;
      }
    }
    if (found === undefined) fail(`unknown type "${name}"`, file, at);
    if (found.kind === "message") return found.type;
    if (found.kind === "enum") return found.type;
    return fail(`"${fullName}" is a ${found.kind}, not a message or enum type`, file, at);
  };

  const valueType = (typeName: string, scope: string, file: string, at: Position): [ValueType, string] => {
    if (SCALAR_TYPES.has(typeName)) return [{ kind: "scalar", scalar: typeName as ScalarType }, typeName];
    const t = resolve(typeName, scope, file, at);
    return t.kind === "message" ? [{ kind: "message", message: t }, t.fullName] : [{ kind: "enum", enum: t }, t.fullName];
  };

  // 2. Fields of every message.
  const linkMessage = (node: MessageNode, scope: string, file: string): void => {
    const fullName = join(scope, node.name);
    const entry = symbols.get(fullName) as Extract<SymbolEntry, { kind: "message" }>;
    const type = entry.type;
    const byJsName = new Map<string, string>();
    const claim = (js: string, name: string, at: Position): void => {
      const other = byJsName.get(js);
      if (other !== undefined) fail(`"${name}" and "${other}" both become the property "${js}"`, file, at);
      byJsName.set(js, name);
    };
    const oneofJs = new Map(node.oneofs.map((o) => [o.name, jsName(o.name)]));
    for (const f of node.fields) {
      const [vt, typeName] = valueType(f.typeName, fullName, file, f.typeAt);
      const label: FieldLabel = f.label;
      const scalar = vt.kind === "scalar" ? vt.scalar : undefined;
      const packable = vt.kind === "enum" || (scalar !== undefined && scalar !== "string" && scalar !== "bytes");
      if ("packed" in f.options && !packable) fail("[packed] applies only to repeated scalar or enum fields", file, f.at);
      const field: Mutable<FieldDescriptor> = {
        name: f.name, jsName: jsName(f.name), number: f.number, label, type: vt, typeName,
        packed: label === "repeated" && packable && f.options["packed"] !== false, options: f.options as Options,
      };
      if (f.mapKey !== undefined) field.mapKey = f.mapKey as ScalarType;
      if (f.oneof !== undefined) field.oneof = oneofJs.get(f.oneof)!;
      claim(field.jsName, f.name, f.at);
      type.fields.push(field);
    }
    for (const o of node.oneofs) {
      const js = oneofJs.get(o.name)!;
      claim(js, o.name, o.at);
      const oneof: OneofDescriptor = { name: o.name, jsName: js, fields: type.fields.filter((f) => f.oneof === js) };
      type.oneofs.push(oneof);
    }
    type.fieldsByNumber = [...type.fields].sort((a, b) => a.number - b.number);
    for (const f of type.fields) type.fieldOfNumber.set(f.number, f);
    for (const nested of node.messages) linkMessage(nested, fullName, file);
  };
  for (const f of files) for (const m of f.messages) linkMessage(m, f.package, f.file);

  // 3. Services.
  for (const f of files) {
    for (const s of f.services) {
      const fullName = join(f.package, s.name);
      const methods: MethodDescriptor[] = s.methods.map((m) => {
        const requestType = resolve(m.requestType, f.package, f.file, m.requestAt);
        const responseType = resolve(m.responseType, f.package, f.file, m.responseAt);
        if (requestType.kind !== "message") fail(`rpc "${m.name}": the request type must be a message`, f.file, m.requestAt);
        if (responseType.kind !== "message") fail(`rpc "${m.name}": the response type must be a message`, f.file, m.responseAt);
        return {
          name: m.name, requestType, responseType, requestStream: m.requestStream, responseStream: m.responseStream,
          path: `/${fullName}/${m.name}`, options: m.options,
        };
      });
      services.set(fullName, { name: s.name, fullName, file: f.file, methods, options: s.options });
    }
  }

  const fileInfo = new Map(files.map((f) => [f.file, { package: f.package, options: f.options as Options }]));
  return { messages, enums, services, files: fileInfo };
}
