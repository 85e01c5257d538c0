/**
 * Radix tree of the dynamic routes of one method (routes with at least one parameter or
 * a wildcard; fully static routes live in a Map and never reach the tree).
 *
 * A node's `prefix` is the raw static text on the edge leading to it. Static children are
 * indexed by the first char code of their prefix (`children[code - childBase]`), so picking
 * the child is one array read. A parameter always fills a whole segment, so `param` and
 * `wildcard` only hang off nodes whose path so far ends with "/".
 * Two routes reaching the same node have the same shape, which the router has already
 * refused as a duplicate; insertion asserts it anyway.
 */
import type { RouteSegment } from "./pattern.js";

/** What a successful lookup ends on. */
export interface RouteLeaf<T> {
  readonly value: T;
  readonly pattern: string;
  readonly paramNames: readonly string[];
  /** True when the last name in `paramNames` is a tail wildcard. */
  readonly hasWildcard: boolean;
}

export class RadixNode<T> {
  prefix: string;
  /** Char codes of `prefix`: comparing against a typed array is cheaper than prefix.charCodeAt. */
  prefixCodes: Uint16Array;
  /** Char code of `children[0]`. */
  childBase = 0;
  /** Static children by first char code minus `childBase`; null for no child. */
  children: Array<RadixNode<T> | null> = childTable(0);
  /** Subtree after a `{param}` segment starting here. */
  param: RadixNode<T> | null = null;
  /** Route with a tail wildcard starting here. */
  wildcard: RouteLeaf<T> | null = null;
  /** Route ending exactly here. */
  leaf: RouteLeaf<T> | null = null;

  constructor(prefix: string) {
    this.prefix = prefix;
    this.prefixCodes = codesOf(prefix);
  }

  setPrefix(prefix: string): void {
    this.prefix = prefix;
    this.prefixCodes = codesOf(prefix);
  }

  childFor(code: number): RadixNode<T> | null {
    const index = code - this.childBase;
    return index >= 0 && index < this.children.length ? (this.children[index] ?? null) : null;
  }

  setChild(code: number, child: RadixNode<T>): void {
    if (this.children.length === 0) this.childBase = code;
    const lo = Math.min(this.childBase, code);
    const hi = Math.max(this.childBase + this.children.length - 1, code);
    const table = childTable<RadixNode<T>>(hi - lo + 1);
    for (let i = 0; i < this.children.length; i++) table[this.childBase + i - lo] = this.children[i] ?? null;
    table[code - lo] = child;
    this.childBase = lo;
    this.children = table;
  }
}

/** Inserts a parsed dynamic route; returns false when its exact shape is already there. */
export function insertRoute<T>(root: RadixNode<T>, segments: readonly RouteSegment[], leaf: RouteLeaf<T>): boolean {
  let node = root;
  let pending = ""; // static text not yet inserted (segments and their "/" separators)
  for (const segment of segments) {
    pending += "/";
    if (segment.kind === "static") {
      pending += segment.text;
      continue;
    }
    node = insertStatic(node, pending);
    pending = "";
    if (segment.kind === "param") {
      node.param ??= new RadixNode<T>("");
      node = node.param;
    } else {
      if (node.wildcard !== null) return false;
      node.wildcard = leaf;
      return true;
    }
  }
  node = insertStatic(node, pending);
  if (node.leaf !== null) return false;
  node.leaf = leaf;
  return true;
}

/** Walks/creates static edges for `text` from `node`, splitting edges where they diverge. */
function insertStatic<T>(start: RadixNode<T>, text: string): RadixNode<T> {
  let node = start;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const child = node.childFor(code);
    if (child === null) {
      const created = new RadixNode<T>(text.slice(i));
      node.setChild(code, created);
      return created;
    }
    const prefix = child.prefix;
    let common = 1;
    while (common < prefix.length && i + common < text.length && prefix.charCodeAt(common) === text.charCodeAt(i + common)) {
      common++;
    }
    if (common < prefix.length) {
      // Split: the edge keeps its first `common` chars, the rest moves one level down.
      const middle = new RadixNode<T>(prefix.slice(0, common));
      child.setPrefix(prefix.slice(common));
      middle.setChild(child.prefix.charCodeAt(0), child);
      node.setChild(code, middle);
      node = middle;
    } else {
      node = child;
    }
    i += common;
  }
  return node;
}

function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return codes;
}

/**
 * A child table of `size` nulls. Every table has the same elements kind (packed, generic),
 * so the lookup's array read sees one map instead of three (empty literal, literal, holey).
 */
function childTable<N>(size: number): Array<N | null> {
  const table: Array<N | null> = [null];
  table.length = 0;
  for (let i = 0; i < size; i++) table.push(null);
  return table;
}
