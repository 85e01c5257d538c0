/**
 * Lookup in a method's radix tree: the hot path.
 *
 * Depth-first with backtracking, trying at each node the static child, then the parameter,
 * then the wildcard, so the first leaf found is the most specific route whatever the order
 * of declaration. Each node is entered at most once per lookup (its position in the path is
 * fixed by its place in the tree), so the work is bounded by the tree size.
 * No allocation: parameter bounds go into a reused Int32Array and the caller builds the
 * params object only on success.
 */
import type { RadixNode, RouteLeaf } from "./radix-node.js";

/** Scratch space of one router, reused by every lookup (lookups are synchronous). */
export class RadixWalkState {
  /** [start0, end0, start1, end1, ...] raw offsets of the parameter values of the current candidate. */
  offsets: Int32Array;
  /** Raw parameter values longer than this do not match a `{param}` node. */
  maxParamLength: number;
  /** Set when some `{param}` node was skipped because its value was too long. */
  skippedTooLong = false;

  constructor(maxParamLength: number) {
    this.offsets = new Int32Array(8);
    this.maxParamLength = maxParamLength;
  }

  /** Makes room for routes with `paramCount` parameters (startup). */
  reserve(paramCount: number): void {
    if (paramCount * 2 > this.offsets.length) this.offsets = new Int32Array(paramCount * 2);
  }
}

/**
 * Finds the leaf for `path` below `node`, whose prefix ends at `pos`; `depth` is the
 * number of parameters captured so far.
 */
export function walkRadix<T>(
  node: RadixNode<T>,
  path: string,
  pos: number,
  depth: number,
  state: RadixWalkState,
): RouteLeaf<T> | null {
  const length = path.length;
  if (pos === length) {
    if (node.leaf !== null) return node.leaf;
    if (node.wildcard !== null) {
      state.offsets[depth * 2] = pos;
      state.offsets[depth * 2 + 1] = pos;
      return node.wildcard;
    }
    return null;
  }

  // 1. static child, chosen by the next char
  const index = path.charCodeAt(pos) - node.childBase;
  const children = node.children;
  if (index >= 0 && index < children.length) {
    const child = children[index] as RadixNode<T> | null;
    if (child !== null) {
      const codes = child.prefixCodes;
      const end = pos + codes.length;
      if (end <= length) {
        let i = 1; // the first char is known to match
        while (i < codes.length && codes[i] === path.charCodeAt(pos + i)) i++;
        if (i === codes.length) {
          const found = walkRadix(child, path, end, depth, state);
          if (found !== null) return found;
        }
      }
    }
  }

  // 2. parameter: one non-empty segment
  const param = node.param;
  if (param !== null) {
    let end = path.indexOf("/", pos); // memchr: cheaper than a charCodeAt loop past a few chars
    if (end === -1) end = length;
    if (end > pos) {
      if (end - pos <= state.maxParamLength) {
        state.offsets[depth * 2] = pos;
        state.offsets[depth * 2 + 1] = end;
        const found = walkRadix(param, path, end, depth + 1, state);
        if (found !== null) return found;
      } else {
        state.skippedTooLong = true;
      }
    }
  }

  // 3. wildcard: the rest of the path
  if (node.wildcard !== null) {
    state.offsets[depth * 2] = pos;
    state.offsets[depth * 2 + 1] = length;
    return node.wildcard;
  }
  return null;
}

/**
 * Lookup from a tree root. Every route starts with "/", so the root has a single edge and
 * checking it here saves one level of recursion on every lookup.
 */
export function findInRadixTree<T>(root: RadixNode<T>, path: string, state: RadixWalkState): RouteLeaf<T> | null {
  const first = root.children[0];
  if (first === undefined || first === null) return null;
  const codes = first.prefixCodes;
  if (path.length < codes.length) return null;
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] !== path.charCodeAt(i)) return null;
  }
  return walkRadix(first, path, codes.length, 0, state);
}
