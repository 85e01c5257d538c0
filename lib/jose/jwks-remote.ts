// A JWK Set fetched from a URL (an identity provider's jwks_uri) with global fetch.
// - cached for `ttlMs`; a stale copy keeps serving if a refresh fails
// - a token with an unknown kid triggers a refresh, at most once per `cooldownMs`
//   (so forged kids cannot make us hammer the provider)
// - concurrent refreshes share one request
// - bounded: response size, key count, request timeout; https only (loopback http allowed)
import type { JwsAlgorithm } from "./jws-algorithms.js";
import { JwsKeyStore, parseJwkSet } from "./jwk-set.js";
import type { SkippedJwk } from "./jwk-set.js";
import type { JwsKey } from "./jwk-key.js";
import { JwtError } from "./jwt-error.js";
import { readLimitedText } from "../shared/read-limited.js";

export interface RemoteJwksOptions {
  /** Cache lifetime in ms (default 10 minutes). */
  readonly ttlMs?: number;
  /** Minimum time between refreshes caused by unknown kids or failures, in ms (default 30 s). */
  readonly cooldownMs?: number;
  /** Request timeout in ms (default 5 s). */
  readonly timeoutMs?: number;
  /** Largest accepted response body in bytes (default 256 KiB). */
  readonly maxBytes?: number;
  /** Allow plain http to non-loopback hosts (default false; never do this in production). */
  readonly allowInsecureHttp?: boolean;
  /** Clock in ms since the epoch (default Date.now); inject one in tests. */
  readonly now?: () => number;
  /** fetch implementation (default globalThis.fetch). */
  readonly fetch?: typeof fetch;
  /** Called with keys that were skipped (wrong use, too weak, ...) after each fetch. */
  readonly onSkippedKeys?: (skipped: readonly SkippedJwk[]) => void;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export class RemoteJwks {
  readonly url: URL;
  readonly #algorithms: readonly JwsAlgorithm[];
  readonly #ttlMs: number;
  readonly #cooldownMs: number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;
  readonly #onSkipped: ((skipped: readonly SkippedJwk[]) => void) | undefined;
  #store: JwsKeyStore | undefined;
  #fetchedAt = -Infinity;
  #lastAttemptAt = -Infinity;
  #inflight: Promise<void> | undefined;
  #lastError: unknown;
  /** Number of HTTP requests made (for tests and metrics). */
  fetchCount = 0;

  constructor(url: string | URL, algorithms: readonly JwsAlgorithm[], options: RemoteJwksOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new JwtError("invalid_config", "jwksUrl is not a valid URL");
    }
    const loopback = LOOPBACK_HOSTS.has(parsed.hostname);
    if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && (loopback || options.allowInsecureHttp === true))) {
      throw new JwtError("invalid_config", "jwksUrl must use https (plain http only for loopback hosts)");
    }
    this.url = parsed;
    this.#algorithms = algorithms;
    this.#ttlMs = options.ttlMs ?? 10 * 60_000;
    this.#cooldownMs = options.cooldownMs ?? 30_000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#maxBytes = options.maxBytes ?? 256 * 1024;
    this.#now = options.now ?? Date.now;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") throw new JwtError("invalid_config", "global fetch is not available");
    this.#fetch = fetchImpl;
    this.#onSkipped = options.onSkippedKeys;
  }

  /** Keys for this alg/kid, fetching or refreshing the set when needed. */
  async candidates(alg: JwsAlgorithm, kid: string | undefined): Promise<readonly JwsKey[]> {
    const now = this.#now();
    const stale = this.#store === undefined || now - this.#fetchedAt >= this.#ttlMs;
    // Expired or never loaded: refresh, unless an attempt (a failed one) was made within the
    // cooldown; then serve the stale copy, or fail fast when there is none.
    if (stale && (this.#inflight !== undefined || now - this.#lastAttemptAt >= this.#cooldownMs)) {
      await this.refresh().catch(() => undefined);
    }
    const store = this.#store;
    if (store === undefined) {
      throw new JwtError("jwks_unavailable", "the JWK Set could not be loaded", { cause: this.#lastError });
    }
    const found = store.candidates(alg, kid);
    if (found.length > 0) return found;
    // Unknown kid (key rotation?): refresh, but at most once per cooldown.
    if (this.#inflight === undefined && this.#now() - this.#lastAttemptAt < this.#cooldownMs) return found;
    await this.refresh().catch(() => undefined);
    return this.#store?.candidates(alg, kid) ?? [];
  }

  /** Fetch the set now; concurrent callers share one request. */
  refresh(): Promise<void> {
    if (this.#inflight) return this.#inflight;
    this.#lastAttemptAt = this.#now();
    this.fetchCount++;
    this.#inflight = this.#load().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #load(): Promise<void> {
    try {
      const response = await this.#fetch(this.url, {
        headers: { accept: "application/jwk-set+json, application/json" },
        redirect: "error",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      if (!response.ok) throw new Error(`JWKS request failed with HTTP ${response.status}`);
      const body = await readLimited(response, this.#maxBytes);
      const parsed = parseJwkSet(JSON.parse(body) as unknown, { mode: "lenient", allowSecrets: false });
      if (parsed.skipped.length > 0) this.#onSkipped?.(parsed.skipped);
      this.#store = new JwsKeyStore(parsed.keys, this.#algorithms);
      this.#fetchedAt = this.#now();
      this.#lastError = undefined;
    } catch (error) {
      this.#lastError = error;
      throw error;
    }
  }
}

function readLimited(response: Response, maxBytes: number): Promise<string> {
  return readLimitedText(response, maxBytes, () => {
    throw new Error(`JWKS response is larger than ${maxBytes} bytes`);
  });
}
