// Maps keyed by untrusted names (header names) with no inherited names, like Object.create(null),
// but in V8's fast mode: Object.create(null) makes a dictionary-mode object, which node:http's
// writeHead walks with a slow for-in (about 6x slower to build and walk for a reply's few headers).
// An instance of a constructor whose prototype has a null prototype has the same lookup semantics
// (no `constructor`, `toString` or `__proto__` accessor: "__proto__" is an own key like any other)
// and keeps hidden classes, so the common header sets share shapes.

/** The constructor behind fastNullProtoMap(); its prototype chain holds no names. */
function NullProtoMap(this: object): void {}
NullProtoMap.prototype = Object.create(null) as object;

/** A new empty map with no inherited names, in fast mode. */
export function fastNullProtoMap<V>(): Record<string, V> {
  return new (NullProtoMap as unknown as new () => Record<string, V>)();
}
