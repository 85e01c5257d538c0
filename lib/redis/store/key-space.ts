// Where redisStore's data lives in Redis, all under one prefix (default "keel:store:"):
//   prefix + key          an entry (a string), or a token bucket (a hash)
//   prefix + "\0t" + tag  the set of entry keys written with `tag`
// A key that itself starts with NUL is stored as prefix + "\0k" + key, so no key can land on a
// tag set and the mapping back from Redis names (scans) is exact. Keys are sent as UTF-8;
// a string with a lone surrogate has no UTF-8 form (it would collide with U+FFFD), so it is refused.

const NUL = "\u0000";
const LONE_SURROGATE = /\p{Surrogate}/u;

export class KeySpace {
  /** SCAN MATCH pattern for everything under the prefix (glob characters escaped). */
  readonly pattern: string;
  private readonly tagPrefix: string;
  private readonly escapedPrefix: string;

  constructor(readonly prefix: string) {
    if (LONE_SURROGATE.test(prefix)) throw new TypeError("redisStore: the prefix has a lone surrogate");
    this.pattern = prefix.replace(/[*?[\]\\]/g, "\\$&") + "*";
    this.tagPrefix = prefix + NUL + "t";
    this.escapedPrefix = prefix + NUL + "k";
  }

  entry(key: string): string {
    if (typeof key !== "string") throw new TypeError("redisStore: keys are strings");
    if (LONE_SURROGATE.test(key)) throw new TypeError("redisStore: a key with a lone surrogate has no UTF-8 form");
    return key.charCodeAt(0) === 0 ? this.escapedPrefix + key : this.prefix + key;
  }

  tag(tag: string): string {
    if (typeof tag !== "string" || LONE_SURROGATE.test(tag)) throw new TypeError("redisStore: tags are well-formed strings");
    return this.tagPrefix + tag;
  }

  /** The store key of a Redis name found by a scan, or undefined for a tag set (or a foreign name). */
  keyOf(name: string): string | undefined {
    if (!name.startsWith(this.prefix)) return undefined;
    if (name.charCodeAt(this.prefix.length) !== 0) return name.slice(this.prefix.length);
    return name.startsWith(this.escapedPrefix) ? name.slice(this.escapedPrefix.length) : undefined;
  }
}
