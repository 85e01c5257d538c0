// What a session is in the store: one JSON text `{"exp":<ms since epoch>,"data":{...}}` under
// `<prefix><id>`. The absolute expiry travels with the data, so a session ends on time even in a
// store that keeps entries past their TTL, and a non-rolling session keeps its first deadline
// when its data changes.

export interface SessionEntry {
  /** Absolute expiry, ms since the epoch (the session's clock). */
  readonly expiresAt: number;
  readonly data: Map<string, unknown>;
  /** The data as the JSON text it was read from, to tell later whether it changed. */
  readonly dataJson: string;
}

/** The data as JSON text (`{}` when empty); throws a TypeError for data JSON cannot carry. */
export function dataToJson(data: Map<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(data));
}

export function encodeEntry(expiresAt: number, dataJson: string): string {
  return `{"exp":${expiresAt},"data":${dataJson}}`;
}

/** The entry stored as `text`, or null when it is not one (a foreign or damaged value). */
export function decodeEntry(text: unknown): SessionEntry | null {
  if (typeof text !== "string") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object") return null;
  const { exp, data } = parsed as { exp?: unknown; data?: unknown };
  if (typeof exp !== "number" || !Number.isFinite(exp)) return null;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return null;
  // A Map: keys such as "__proto__" or "constructor" are plain keys here.
  const map = new Map<string, unknown>(Object.entries(data));
  return { expiresAt: exp, data: map, dataJson: dataToJson(map) };
}
