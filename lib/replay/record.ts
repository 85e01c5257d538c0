// What one recorded exchange looks like, in the store, on the admin API and in the JSONL file.
// Field names are snake_case because the record is a wire format (the admin API's JSON).

/** Header values as recorded: lowercase names, repeated headers (set-cookie) as arrays. */
export type RecordedHeaders = Record<string, string | string[]>;

/** A captured body: text, or null when there was none; `body_omitted` when it was not recorded. */
export interface RecordedBody {
  /** The body text (redacted, at most the cap), a placeholder when omitted, null when empty. */
  body: string | null;
  /** Size of the whole body in bytes, null when unknown (a stream, an unread chunked body). */
  body_size: number | null;
  /** The text is the first `max*Body` bytes of a longer body. */
  body_truncated: boolean;
  /** Not recorded (binary, streamed, unread or unparsable): `body` is a placeholder, not the body. */
  body_omitted: boolean;
}

export interface RecordedRequest extends RecordedBody {
  method: string;
  path: string;
  /** The raw query string without `?` ("" when absent). */
  query: string;
  headers: RecordedHeaders;
}

export interface RecordedResponse extends RecordedBody {
  status: number;
  headers: RecordedHeaders;
}

export interface RecordMeta {
  /** The matched route's pattern (`/users/{id}`). */
  route: string;
  duration_ms: number;
  /** The request id (from a request-id layer, or the `x-request-id` header), null when none. */
  request_id: string | null;
}

export interface ReplayRecord {
  /** A random UUID. */
  id: string;
  /** ISO 8601 time the request arrived. */
  recorded_at: string;
  request: RecordedRequest;
  response: RecordedResponse;
  meta: RecordMeta;
}

/** Filters of `ReplayStore.list` (and of the admin list route). */
export interface ReplayListFilter {
  /** Only this route pattern. */
  route?: string;
  /** Only this response status. */
  status?: number;
  /** Only records at or after this time. */
  since?: Date;
  /** At most this many (newest first). */
  limit?: number;
}

