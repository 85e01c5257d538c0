// The one thenable test, for the hot path's "sync or async" forks (a `then` method is enough:
// layers and stores may hand back any Promises/A+ thenable).
export function isPromise<T>(v: T | PromiseLike<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | null)?.then === "function";
}
