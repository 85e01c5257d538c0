// Loading a .proto file with its imports. Sources come from a callback, so tests and bundles can
// load from memory; loadProtoFile() reads from disk. An import is looked up relative to the
// importing file first, then as written (relative to the root the loader serves), then among the
// built-in google/protobuf files.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, posix, resolve as resolvePath } from "node:path";
import type { ProtoRoot } from "./descriptors.js";
import { ProtoParseError } from "./errors.js";
import { linkProtoFiles, type LinkOptions } from "./link.js";
import { parseProto } from "./parser.js";
import type { ProtoFileNode } from "./syntax-tree.js";
import { WELL_KNOWN_PROTOS } from "./well-known.js";

/** Returns the source of the file at `path`, or undefined when there is none. */
export type ProtoSourceLoader = (path: string) => string | undefined;

export interface LoadProtoOptions extends LinkOptions {
  /** Where imports (and the entry file) come from. Without it only built-in files can be imported. */
  load?: ProtoSourceLoader;
}

/** Parse `source` (named `file` in errors) and everything it imports, and link the result. */
export function loadProtoSource(source: string, file = "<input>.proto", options: LoadProtoOptions = {}): ProtoRoot {
  const load = options.load ?? (() => undefined);
  const parsed = new Map<string, ProtoFileNode>();
  const inProgress: string[] = [];

  const visit = (path: string, text: string): void => {
    inProgress.push(path);
    const node = parseProto(text, path);
    for (const imp of node.imports) {
      const found = findImport(imp.path, path, load);
      if (found === undefined) throw new ProtoParseError(`cannot find import "${imp.path}"`, { file: path, line: imp.at.line, col: imp.at.col });
      if (inProgress.includes(found.path)) {
        throw new ProtoParseError(`import cycle: ${[...inProgress.slice(inProgress.indexOf(found.path)), found.path].join(" -> ")}`, { file: path, line: imp.at.line, col: imp.at.col });
      }
      if (!parsed.has(found.path)) visit(found.path, found.source);
    }
    inProgress.pop();
    parsed.set(path, node);
  };
  visit(file, source);
  return linkProtoFiles([...parsed.values()], options);
}

/** Load the entry file `path` through `options.load` (required) with its imports. */
export function loadProto(path: string, options: LoadProtoOptions & { load: ProtoSourceLoader }): ProtoRoot {
  const source = options.load(path);
  if (source === undefined) throw new ProtoParseError(`cannot read "${path}"`, { file: path, line: 1, col: 1 });
  return loadProtoSource(source, path, options);
}

/** Load a .proto file from disk; imports resolve next to the importer, then in `includeDirs`. */
export function loadProtoFile(path: string, options: LinkOptions & { includeDirs?: readonly string[] } = {}): ProtoRoot {
  const entry = resolvePath(path);
  const roots = [dirname(entry), ...(options.includeDirs ?? []).map((d) => resolvePath(d))];
  const read = (p: string): string | undefined => {
    try {
      return readFileSync(p, "utf8");
    } catch {
      return undefined;
    }
  };
  const load: ProtoSourceLoader = (p) => {
    if (isAbsolute(p)) return read(p);
    for (const root of roots) {
      const text = read(resolvePath(root, p));
      if (text !== undefined) return text;
    }
    return undefined;
  };
  return loadProto(entry, { ...options, load });
}

function findImport(importPath: string, importer: string, load: ProtoSourceLoader): { path: string; source: string } | undefined {
  const candidates = [posix.normalize(posix.join(posix.dirname(importer), importPath)), posix.normalize(importPath)];
  for (const candidate of new Set(candidates)) {
    const source = load(candidate);
    if (source !== undefined) return { path: candidate, source };
  }
  const builtIn = WELL_KNOWN_PROTOS.get(posix.normalize(importPath));
  return builtIn === undefined ? undefined : { path: posix.normalize(importPath), source: builtIn };
}
