// Runtime state shared by the compiled checks of one validation run, and the error reporter.
import type { FieldError } from "./types.js";

/** What in-place applicators evaluated at one instance location (for `unevaluated*`). */
export interface Evaluated {
  props: Set<string> | null;
  allProps: boolean;
  /** Leading items evaluated by prefixItems/items. */
  items: number;
  allItems: boolean;
  /** Items matched by `contains`. */
  itemSet: Set<number> | null;
}

export function newEvaluated(): Evaluated {
  return { props: null, allProps: false, items: 0, allItems: false, itemSet: null };
}

export function mergeEvaluated(into: Evaluated, from: Evaluated): void {
  if (from.allProps) into.allProps = true;
  else if (from.props !== null) {
    if (into.props === null) into.props = new Set(from.props);
    else for (const p of from.props) into.props.add(p);
  }
  if (from.allItems) into.allItems = true;
  if (from.items > into.items) into.items = from.items;
  if (from.itemSet !== null) {
    if (into.itemSet === null) into.itemSet = new Set(from.itemSet);
    else for (const i of from.itemSet) into.itemSet.add(i);
  }
}

/** A compiled check: true when `v` passes. Reports errors into `s` unless `s.quiet > 0`. */
export type Check = (v: unknown, s: ValidationState, ev: Evaluated | null) => boolean;

export class ValidationState {
  errors: FieldError[] | null = null;
  /** > 0 inside anyOf/oneOf/not/if/contains branches: failures are results, not errors. */
  quiet = 0;
  /** Reached maxErrors: every check stops as soon as it can. */
  capped = false;
  /** Instance location of the value being checked (property names and indexes). */
  readonly path: (string | number)[] = [];
  refDepth = 0;
  /** Dynamic scope: base URIs of the schema resources entered (outermost first), for `$dynamicRef`. */
  readonly scope: string[] = [];

  constructor(readonly maxErrors: number, readonly maxRefDepth: number) {}

  /** Per call: cheap when the previous run left nothing behind (the usual valid case). */
  reset(): void {
    this.errors = null;
    this.quiet = 0;
    this.capped = false;
    this.refDepth = 0;
    if (this.path.length !== 0) this.path.length = 0;
    if (this.scope.length !== 0) this.scope.length = 0;
  }

  /** Records one failed rule at the current path (plus `child`, for required/additional properties). */
  report(code: string, message: string, child?: string | number): void {
    if (this.quiet > 0 || this.capped) return;
    const errors = (this.errors ??= []);
    errors.push({ field: formatFieldPath(this.path, child), code, message });
    if (errors.length >= this.maxErrors) this.capped = true;
  }

  /**
   * Reporter for generated code: `rel` is the field text below the current path, as generated code
   * formats it ("" right here, `address.city`, `[2].name`). Returns true when the caller must stop.
   */
  failAt(rel: string, code: string, message: string): boolean {
    if (this.quiet > 0 || this.capped) return true;
    let field = rel;
    if (this.path.length > 0) {
      const prefix = formatFieldPath(this.path);
      field = rel === "" ? prefix : rel.charCodeAt(0) === 91 ? prefix + rel : `${prefix}.${rel}`;
    }
    const errors = (this.errors ??= []);
    errors.push({ field, code, message });
    if (errors.length >= this.maxErrors) this.capped = true;
    return this.capped;
  }

  /** After a failed check: true when the caller should stop (quiet branch or error cap). */
  get stop(): boolean {
    return this.quiet > 0 || this.capped;
  }
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `email`, `address.city`, `items[2].name`; "" is the root; odd keys are quoted: `a["b c"]`. */
export function formatFieldPath(path: readonly (string | number)[], child?: string | number): string {
  let out = "";
  const n = path.length;
  for (let i = 0; i <= n; i++) {
    const seg = i < n ? path[i] : child;
    if (seg === undefined) break;
    if (typeof seg === "number") out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
