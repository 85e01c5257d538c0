/**
 * The router: one static Map and one radix tree per method.
 *
 * `add` validates everything at startup (RouteError); `find` never throws for a path that
 * simply has no route (null), only BadPathError for an unusable parameter value.
 * Fully static routes are answered from the Map with a precomputed frozen match (no
 * allocation); the others go through the radix tree and allocate only the params object
 * and the match on success.
 */
import { BadPathError, RouteError } from "./errors.js";
import { checkRouteMethod } from "./method-token.js";
import { parseRoutePattern } from "./pattern.js";
import { RadixNode, insertRoute } from "./radix-node.js";
import type { RouteLeaf } from "./radix-node.js";
import { RadixWalkState, findInRadixTree } from "./radix-walk.js";

export interface RouteMatch<T> {
  readonly value: T;
  /** Null-prototype object, percent-decoded values. Frozen and shared for static routes. */
  readonly params: Record<string, string>;
  /** Canonical pattern (`/users/{id}`): bounded cardinality, fit for logs and metrics. */
  readonly pattern: string;
}

export interface RouterOptions {
  /** Longest raw value a `{param}` may have (wildcards are not limited). Default 100. */
  maxParamLength?: number;
}

/** One registered route, as listed by `Router.routes()`. */
export interface RouterRouteInfo<T> {
  method: string;
  pattern: string;
  value: T;
  paramNames: string[];
}

export const DEFAULT_MAX_PARAM_LENGTH = 100;

/** "No limit", kept a small integer (not Infinity) so the walk state's field stays a Smi. */
const UNLIMITED_PARAM_LENGTH = 0x3fffffff;

/** Shared by every static match: nothing to read, nothing to write. */
const EMPTY_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

interface RouteRecord<T> {
  readonly method: string;
  readonly pattern: string;
  readonly value: T;
  readonly paramNames: readonly string[];
}

interface MethodTable<T> {
  readonly statics: Map<string, RouteMatch<T>>;
  root: RadixNode<T> | null;
  /** Shape (names erased) → route, to refuse duplicates that differ only by names. */
  readonly shapes: Map<string, RouteRecord<T>>;
}

export class Router<T> {
  readonly #tables = new Map<string, MethodTable<T>>();
  /** The GET table, also in #tables: most lookups skip the method Map. */
  #getTable: MethodTable<T> | undefined = undefined;
  /** Shape → first route of that shape, any method: one parameter name per position. */
  readonly #shapeNames = new Map<string, RouteRecord<T>>();
  readonly #records: Array<RouteRecord<T>> = [];
  readonly #state: RadixWalkState;
  /** Walk state without a length limit: allowedMethods and the too-long diagnosis. */
  readonly #unlimited = new RadixWalkState(UNLIMITED_PARAM_LENGTH);
  /** Every route of every method in one table: a 404 asks it once instead of each method's. */
  readonly #anyStatics = new Set<string>();
  #anyRoot: RadixNode<T> | null = null;

  constructor(options?: RouterOptions) {
    const max = options?.maxParamLength ?? DEFAULT_MAX_PARAM_LENGTH;
    if (!Number.isInteger(max) || max < 1) {
      throw new RouteError(`maxParamLength must be a positive integer, got ${String(max)}`);
    }
    this.#state = new RadixWalkState(Math.min(max, UNLIMITED_PARAM_LENGTH));
  }

  /** Registers a route. Throws RouteError for a malformed path or method, or a conflict. */
  add(method: string, path: string, value: T): void {
    checkRouteMethod(method);
    const parsed = parseRoutePattern(path);
    const record: RouteRecord<T> = { method, pattern: parsed.pattern, value, paramNames: parsed.paramNames };

    let table = this.#tables.get(method);
    const duplicate = table?.shapes.get(parsed.shape);
    if (duplicate !== undefined) {
      throw new RouteError(
        `duplicate route ${describe(record, path)}: ${duplicate.method} ${duplicate.pattern} already matches the same paths`,
      );
    }
    const sameShape = this.#shapeNames.get(parsed.shape);
    if (sameShape !== undefined && sameShape.paramNames.join("/") !== parsed.paramNames.join("/")) {
      throw new RouteError(
        `route ${describe(record, path)} names its parameters differently from ${sameShape.method} ${sameShape.pattern}; ` +
          `use the same names at the same positions (OpenAPI describes one path)`,
      );
    }

    if (table === undefined) {
      table = { statics: new Map(), root: null, shapes: new Map() };
      this.#tables.set(method, table);
      if (method === "GET") this.#getTable = table;
    }
    if (parsed.paramNames.length === 0) {
      const match: RouteMatch<T> = Object.freeze({ value, params: EMPTY_PARAMS, pattern: parsed.pattern });
      table.statics.set(parsed.pattern, match);
      this.#anyStatics.add(parsed.pattern);
    } else {
      const segments = parsed.segments;
      const leaf: RouteLeaf<T> = {
        value,
        pattern: parsed.pattern,
        paramNames: parsed.paramNames.slice(),
        hasWildcard: segments[segments.length - 1]?.kind === "wildcard",
      };
      table.root ??= new RadixNode<T>("");
      if (!insertRoute(table.root, segments, leaf)) {
        // Unreachable: same node means same shape, refused above.
        throw new RouteError(`duplicate route ${describe(record, path)}`);
      }
      // The first route of a shape stands for every method's in the all-methods tree.
      if (sameShape === undefined) insertRoute((this.#anyRoot ??= new RadixNode<T>("")), segments, leaf);
      this.#state.reserve(parsed.paramNames.length);
      this.#unlimited.reserve(parsed.paramNames.length);
    }
    table.shapes.set(parsed.shape, record);
    if (sameShape === undefined) this.#shapeNames.set(parsed.shape, record);
    this.#records.push(record);
  }

  /**
   * The most specific route for `method` and the raw request `path` (no query string), or
   * null. Throws BadPathError when the matched parameter value has invalid percent-encoding,
   * or when the only reason for no match is a parameter longer than maxParamLength.
   */
  find(method: string, path: string): RouteMatch<T> | null {
    const table = method === "GET" ? this.#getTable : this.#tables.get(method);
    if (table === undefined) return null;
    const hit = table.statics.get(path);
    if (hit !== undefined) return hit;
    const root = table.root;
    if (root === null) return null;
    const state = this.#state;
    state.skippedTooLong = false;
    const leaf = findInRadixTree(root, path, state);
    if (leaf !== null) return buildMatch(leaf, path, state.offsets);
    if (state.skippedTooLong) this.#throwIfTooLong(root, path);
    return null;
  }

  /**
   * Methods having a route whose structure matches `path`, sorted (for a 405 `Allow`).
   * Parameter values are not checked here (length, encoding): that is `find`'s job.
   */
  allowedMethods(path: string): string[] {
    // The common miss (a 404) walks one table, not one per method.
    const any = this.#anyRoot;
    if (!this.#anyStatics.has(path) && (any === null || findInRadixTree(any, path, this.#unlimited) === null)) return [];
    const methods: string[] = [];
    for (const [method, table] of this.#tables) {
      if (table.statics.has(path) || (table.root !== null && findInRadixTree(table.root, path, this.#unlimited) !== null)) {
        methods.push(method);
      }
    }
    return methods.sort();
  }

  /** Every route in registration order (fresh objects: safe to keep or change). */
  routes(): Array<RouterRouteInfo<T>> {
    return this.#records.map((r) => ({ method: r.method, pattern: r.pattern, value: r.value, paramNames: r.paramNames.slice() }));
  }

  /** Walks again without the length limit; a route found that way was missed only because of it. */
  #throwIfTooLong(root: RadixNode<T>, path: string): void {
    const unlimited = this.#unlimited;
    const leaf = findInRadixTree(root, path, unlimited);
    if (leaf === null) return;
    const max = this.#state.maxParamLength;
    const limited = leaf.hasWildcard ? leaf.paramNames.length - 1 : leaf.paramNames.length;
    for (let i = 0; i < limited; i++) {
      const length = (unlimited.offsets[i * 2 + 1] ?? 0) - (unlimited.offsets[i * 2] ?? 0);
      if (length > max) {
        const name = leaf.paramNames[i] ?? "";
        throw new BadPathError(
          "param_too_long",
          name,
          `path parameter "${name}" is ${length} characters long; the limit is ${max}`,
        );
      }
    }
  }
}

function describe(record: RouteRecord<unknown>, path: string): string {
  return record.pattern === path ? `${record.method} ${path}` : `${record.method} ${path} (${record.pattern})`;
}

/** Params object (null prototype, values decoded once) and match for a tree leaf. */
function buildMatch<T>(leaf: RouteLeaf<T>, path: string, offsets: Int32Array): RouteMatch<T> {
  const names = leaf.paramNames;
  const params = Object.create(null) as Record<string, string>;
  const encoded = path.indexOf("%") !== -1; // one scan for the whole path, not one per value
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const raw = path.slice(offsets[i * 2], offsets[i * 2 + 1]);
    params[name] = encoded && raw.indexOf("%") !== -1 ? decodeParam(raw, name) : raw;
  }
  return { value: leaf.value, params, pattern: leaf.pattern };
}

function decodeParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadPathError("bad_encoding", name, `path parameter "${name}" has invalid percent-encoding`);
  }
}
