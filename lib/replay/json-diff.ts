// Structural comparison of two JSON values: the paths (`$.user.tags[2]`) where they differ. A
// recorded value "[redacted]" matches anything: the secret was not kept, so it cannot differ.
// Properties named in `ignored` (volatile ids) are not compared at any depth.
import { REDACTED } from "./redaction.js";

export interface JsonChange {
  /** `$` for the root, `.name` for identifier keys, `["odd key"]` otherwise, `[i]` for items. */
  path: string;
  kind: "changed" | "added" | "removed";
  /** The recorded value (absent when added). */
  recorded?: unknown;
  /** The replayed value (absent when removed). */
  replayed?: unknown;
}

/** At most this many changes are listed; `truncated` says more were left out. */
export const MAX_JSON_CHANGES = 1000;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function keyPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

function kindOf(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

export function diffJson(recorded: unknown, replayed: unknown, ignored: ReadonlySet<string> = new Set()): { changes: JsonChange[]; truncated: boolean } {
  const changes: JsonChange[] = [];
  let truncated = false;
  const push = (c: JsonChange): void => {
    if (changes.length < MAX_JSON_CHANGES) changes.push(c);
    else truncated = true;
  };
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (a === REDACTED) return;
    const ka = kindOf(a);
    if (ka !== kindOf(b)) return push({ path, kind: "changed", recorded: a, replayed: b });
    if (ka === "array") {
      const x = a as unknown[];
      const y = b as unknown[];
      const common = Math.min(x.length, y.length);
      for (let i = 0; i < common; i++) walk(x[i], y[i], `${path}[${i}]`);
      for (let i = common; i < x.length; i++) push({ path: `${path}[${i}]`, kind: "removed", recorded: x[i] });
      for (let i = common; i < y.length; i++) push({ path: `${path}[${i}]`, kind: "added", replayed: y[i] });
      return;
    }
    if (ka === "object") {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      for (const key of Object.keys(x)) {
        if (ignored.has(key)) continue;
        if (Object.hasOwn(y, key)) walk(x[key], y[key], keyPath(path, key));
        else if (x[key] !== REDACTED) push({ path: keyPath(path, key), kind: "removed", recorded: x[key] });
      }
      for (const key of Object.keys(y)) if (!Object.hasOwn(x, key) && !ignored.has(key)) push({ path: keyPath(path, key), kind: "added", replayed: y[key] });
      return;
    }
    if (a !== b) push({ path, kind: "changed", recorded: a, replayed: b });
  };
  walk(recorded, replayed, "$");
  return { changes, truncated };
}
