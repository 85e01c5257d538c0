// Async rules (SPEC async_unique, custom_async). A rule is plain JSON stored in the schema under the
// `x-keel-async` keyword (so raw schemas can carry it too); compileSchema collects where they sit and
// `runAsyncRules` runs them after every sync rule passed: concurrently, each with a timeout.
// An adapter that is missing, throws or times out is a server problem, not a client one: it rejects
// with `SchemaAsyncRuleError` (map it to 500/503), it never becomes a 422 field item.
import { ASYNC_KEYWORD, formatFieldPath, SchemaAsyncRuleError, type AsyncRule, type AsyncRuleAdapters, type FieldError, type JsonSchema } from "../plugin.js";

/**
 * SPEC async_unique: the value must not exist yet in `table.column` (asks `adapters.db.isUnique`).
 *
 * @example
 * ```ts
 * t.string({ email: true, async: [asyncUnique({ table: "users", column: "email" })] })
 * // the app gives the adapter: new App({ validation: { db: { isUnique } } })
 * ```
 * @see docs/features/schema.md
 */
export function asyncUnique(options: { table: string; column: string; message?: string }): AsyncRule {
  const rule: { kind: "unique"; table: string; column: string; message?: string } = { kind: "unique", table: options.table, column: options.column };
  if (options.message !== undefined) rule.message = options.message;
  return rule;
}

/** SPEC custom_async: calls `adapters.custom[name](value)`, which resolves to null or `{ code, message }`. */
export function customAsync(name: string): AsyncRule {
  return { kind: "custom", name };
}

/** Where async rules sit: a path of property names, prefix indexes, and "*" for every item. */
export interface AsyncRuleSite {
  readonly path: readonly (string | number | "*")[];
  readonly rules: readonly AsyncRule[];
}

type Obj = { readonly [k: string]: unknown };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Finds `x-keel-async` under properties, items, prefixItems and allOf (not through $ref). */
export function collectAsyncSites(schema: JsonSchema): AsyncRuleSite[] {
  const sites: AsyncRuleSite[] = [];
  const walk = (node: unknown, path: (string | number | "*")[], depth: number): void => {
    if (!isObj(node) || depth > 32) return;
    const rules = node[ASYNC_KEYWORD];
    if (Array.isArray(rules) && rules.length > 0) sites.push({ path, rules: rules as AsyncRule[] });
    const props = node["properties"];
    if (isObj(props)) for (const key of Object.keys(props)) walk(props[key], [...path, key], depth + 1);
    if (isObj(node["items"])) walk(node["items"], [...path, "*"], depth + 1);
    const prefix = node["prefixItems"];
    if (Array.isArray(prefix)) prefix.forEach((p, i) => walk(p, [...path, i], depth + 1));
    const all = node["allOf"];
    if (Array.isArray(all)) for (const sub of all) walk(sub, path, depth + 1);
  };
  walk(schema, [], 0);
  return sites;
}

interface Task {
  field: string;
  value: unknown;
  rule: AsyncRule;
}

function gather(value: unknown, site: AsyncRuleSite, out: Task[], limit: number): void {
  const visit = (v: unknown, i: number, at: (string | number)[]): void => {
    if (v === undefined || out.length > limit) return;
    if (i === site.path.length) {
      const field = formatFieldPath(at);
      for (const rule of site.rules) out.push({ field, value: v, rule });
      return;
    }
    const seg = site.path[i] as string | number;
    if (seg === "*") {
      if (Array.isArray(v)) for (let k = 0; k < v.length && out.length <= limit; k++) visit(v[k], i + 1, [...at, k]);
    } else if (typeof seg === "number") {
      if (Array.isArray(v)) visit(v[seg], i + 1, [...at, seg]);
    } else if (isObj(v) && Object.hasOwn(v, seg)) {
      visit(v[seg], i + 1, [...at, seg]);
    }
  };
  visit(value, 0, []);
}

function withTimeout<T>(promise: Promise<T>, ms: number, task: Task, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SchemaAsyncRuleError("timeout", name, task.field)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runTask(task: Task, adapters: AsyncRuleAdapters, timeoutMs: number): Promise<FieldError | null> {
  const rule = task.rule;
  if (rule.kind === "unique") {
    const db = adapters.db;
    if (db === undefined) throw new SchemaAsyncRuleError("missing_adapter", "async_unique", task.field);
    let unique: boolean;
    try {
      unique = await withTimeout(Promise.resolve().then(() => db.isUnique(rule.table, rule.column, task.value)), timeoutMs, task, "async_unique");
    } catch (error) {
      if (error instanceof SchemaAsyncRuleError) throw error;
      throw new SchemaAsyncRuleError("failed", "async_unique", task.field, { cause: error });
    }
    return unique ? null : { field: task.field, code: "async_unique", message: rule.message ?? "is already taken" };
  }
  const fn = adapters.custom?.[rule.name];
  if (fn === undefined) throw new SchemaAsyncRuleError("missing_adapter", rule.name, task.field);
  let result: { code: string; message: string } | null;
  try {
    result = await withTimeout(Promise.resolve().then(() => fn(task.value)), timeoutMs, task, rule.name);
  } catch (error) {
    if (error instanceof SchemaAsyncRuleError) throw error;
    throw new SchemaAsyncRuleError("failed", rule.name, task.field, { cause: error });
  }
  if (result === null || result === undefined) return null;
  return { field: task.field, code: String(result.code), message: String(result.message) };
}

/** Runs every async rule found in `value`; resolves to the failed ones in schema order. */
export async function runAsyncRules(
  sites: readonly AsyncRuleSite[],
  value: unknown,
  adapters: AsyncRuleAdapters,
  timeoutMs: number,
  maxChecks: number,
): Promise<FieldError[]> {
  const tasks: Task[] = [];
  for (const site of sites) gather(value, site, tasks, maxChecks);
  if (tasks.length > maxChecks) {
    // A hostile body must not fan out into thousands of database queries.
    return [{ field: "", code: "async_limit", message: `too many values to check (at most ${maxChecks})` }];
  }
  const results = await Promise.all(tasks.map((task) => runTask(task, adapters, timeoutMs)));
  return results.filter((r): r is FieldError => r !== null);
}
