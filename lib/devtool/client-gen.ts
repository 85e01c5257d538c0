// `keel client`: an OpenAPI document → one TypeScript file: a type per component schema, an
// `Operations` interface (each operation's input and declared answers), and createClient(baseUrl)
// with one method per operationId. The file imports nothing (fetch is global in Node and
// browsers), so it goes into a front end or another service as it is.
import type { OpenApiDocument } from "../openapi/index.js";
import { CLIENT_RUNTIME } from "./client-runtime.js";
import { propertyKey, schemaType, typeName } from "./schema-types.js";

type Json = Readonly<Record<string, unknown>>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"] as const;

/** Request body encodings the client sends, by media type, and the input key for each. */
const BODY_KEYS: ReadonlyArray<readonly [RegExp, string, (schema: string) => string]> = [
  [/^application\/(?:[\w.+-]+\+)?json$/i, "json", (t) => t],
  [/^application\/x-www-form-urlencoded$/i, "form", (t) => (t === "unknown" ? "Readonly<Record<string, unknown>>" : t)],
  [/^multipart\/form-data$/i, "multipart", () => "FormData"],
  [/^text\//i, "text", () => "string"],
  [/^application\/octet-stream$/i, "bytes", () => "Uint8Array"],
];

function record(value: unknown): Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

/** `value`, or the component its `$ref` names (one step: components of keel's documents do not chain). */
function resolveRef(doc: OpenApiDocument, value: unknown): Json {
  const ref = record(value)["$ref"];
  if (typeof ref !== "string" || !ref.startsWith("#/components/")) return record(value);
  const [, , kind, name] = ref.split("/");
  return record(record(record(doc.components)[kind as string])[decodeURIComponent(name ?? "")]);
}

function block(fields: readonly string[], indent: string): string {
  return fields.length === 0 ? "{}" : `{\n${fields.map((f) => `${indent}  ${f}`).join("\n")}\n${indent}}`;
}

interface OperationParts {
  id: string;
  method: string;
  path: string;
  summary: string | undefined;
  input: string;
  inputRequired: boolean;
  responses: string;
}

function operationParts(doc: OpenApiDocument, path: string, method: string, op: Json, indent: string): OperationParts {
  const groups: Record<string, { fields: string[]; required: boolean }> = { params: { fields: [], required: false }, query: { fields: [], required: false }, headers: { fields: [], required: false } };
  const where: Record<string, string> = { path: "params", query: "query", header: "headers" };
  for (const raw of Array.isArray(op["parameters"]) ? op["parameters"] : []) {
    const p = resolveRef(doc, raw);
    const group = groups[where[String(p["in"])] ?? ""];
    if (group === undefined || typeof p["name"] !== "string") continue;
    const required = p["required"] === true;
    // Header values travel as text whatever their schema says.
    const type = p["in"] === "header" ? "string" : schemaType(record(p["schema"]), 0, indent + "    ");
    group.fields.push(`${propertyKey(p["in"] === "header" ? p["name"].toLowerCase() : p["name"])}${required ? "" : "?"}: ${type};`);
    if (required) group.required = true;
  }
  const fields: string[] = [];
  let inputRequired = false;
  for (const [key, g] of Object.entries(groups)) {
    if (g.fields.length === 0) continue;
    const extraHeaders = key === "headers" ? " & Readonly<Record<string, string>>" : "";
    fields.push(`${key}${g.required ? "" : "?"}: ${block(g.fields, indent + "  ")}${extraHeaders};`);
    inputRequired ||= g.required;
  }
  if (groups["headers"]?.fields.length === 0) fields.push("headers?: Readonly<Record<string, string>>;");
  const body = resolveRef(doc, op["requestBody"]);
  const bodies: string[] = [];
  for (const [mediaType, media] of Object.entries(record(body["content"]))) {
    const match = BODY_KEYS.find(([re]) => re.test(mediaType));
    if (match === undefined) continue;
    bodies.push(`${match[1]}: ${match[2](schemaType(record(record(media)["schema"]), 0, indent + "  "))}`);
  }
  const bodyRequired = body["required"] === true;
  // Several encodings: exactly one of them is sent.
  if (bodies.length === 1) fields.push(`${bodies[0]!.replace(":", bodyRequired ? ":" : "?:")};`);
  else if (bodies.length > 1) fields.push(`/** One of: ${bodies.map((b) => b.split(":")[0]).join(", ")}. */`, ...bodies.map((b) => `${b.replace(":", "?:")};`));
  inputRequired ||= bodyRequired && bodies.length === 1;
  fields.push("signal?: AbortSignal;");

  const answers: string[] = [];
  for (const [status, raw] of Object.entries(record(op["responses"]))) {
    if (!/^[1-5][0-9][0-9]$/.test(status)) continue;
    const content = record(resolveRef(doc, raw)["content"]);
    const types = Object.entries(content).map(([mediaType, media]) =>
      /json$/i.test(mediaType) ? schemaType(record(record(media)["schema"]), 0, indent + "    ") : "string",
    );
    answers.push(`${status}: ${types.length === 0 ? "undefined" : [...new Set(types)].join(" | ")};`);
  }
  const summary = typeof op["summary"] === "string" ? op["summary"] : undefined;
  return { id: String(op["operationId"] ?? `${method}${path}`), method: method.toUpperCase(), path, summary, input: block(fields, indent), inputRequired, responses: block(answers, indent) };
}

function comment(text: string): string {
  return text.replace(/\*\//g, "*\\/");
}

/** The client file for `doc`. */
export function generateClient(doc: OpenApiDocument): string {
  const info = record(doc.info);
  const out: string[] = [
    `// Generated by \`keel client\` from ${JSON.stringify(comment(String(info["title"] ?? "")))} ${comment(String(info["version"] ?? ""))} (OpenAPI ${comment(String(doc.openapi))}).`,
    "// Do not edit: generate it again when the API changes. It needs only fetch (Node 20+, browsers).",
    "//   const api = createClient(\"http://127.0.0.1:8080\");",
    "//   const r = await api.<operationId>({ params: { ... } });   if (r.ok) r.body ...",
    "/* eslint-disable */",
    "",
  ];
  for (const [name, schema] of Object.entries(record(record(doc.components)["schemas"]))) {
    out.push(`export type ${typeName(name)} = ${schemaType(record(schema))};`, "");
  }
  const ops: OperationParts[] = [];
  for (const [path, item] of Object.entries(record(doc.paths))) {
    for (const method of METHODS) {
      const op = record(item)[method];
      if (op !== undefined) ops.push(operationParts(doc, path, method, record(op), "    "));
    }
  }
  out.push("/** Every operation: what a call takes (`input`) and what it can answer (`responses`, by status). */", "export interface Operations {");
  for (const op of ops) {
    out.push(`  ${propertyKey(op.id)}: {`, `    input: ${op.input};`, `    responses: ${op.responses};`, "  };");
  }
  out.push("}", "", CLIENT_RUNTIME, "/** A client for the API at `baseUrl`: one method per operation. */", "export function createClient(baseUrl: string, options: ClientOptions = {}) {", "  const call = caller(baseUrl, options);", "  return {");
  for (const op of ops) {
    const ref = `Operations[${JSON.stringify(op.id)}]`;
    out.push(
      `    /** ${comment(`${op.method} ${op.path}${op.summary === undefined ? "" : `: ${op.summary}`}`)} */`,
      `    ${propertyKey(op.id)}: (input: ${ref}["input"]${op.inputRequired ? "" : " = {}"}) => call(${JSON.stringify(op.method)}, ${JSON.stringify(op.path)}, input) as Promise<Result<${ref}["responses"]>>,`,
    );
  }
  out.push("  };", "}", "", "export type Client = ReturnType<typeof createClient>;", "");
  return out.join("\n");
}
