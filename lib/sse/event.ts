// One server-sent event (text/event-stream, WHATWG HTML "Server-sent events") and its wire text,
// each field checked as it is written.

/** One event. Every field is optional; an event with none writes nothing. */
export interface SseEvent {
  /** The payload: a string is sent as it is (one `data:` line per line), anything else as JSON. */
  data?: unknown;
  /** The event type (`addEventListener(type)` on the client); no CR, LF or NUL. */
  event?: string;
  /** The id the client sends back as Last-Event-ID when it reconnects; no CR, LF or NUL. */
  id?: string;
  /** The client's reconnection delay in milliseconds: a non-negative integer. */
  retry?: number;
  /** A comment line (clients ignore it). */
  comment?: string;
}

const LINE_BREAK = /\r\n|\r|\n/;
const FIELD_FORBIDDEN = /[\r\n\0]/;

function prefixedLines(prefix: string, text: string): string {
  let out = "";
  for (const line of text.split(LINE_BREAK)) out += prefix + line + "\n";
  return out;
}

function fieldValue(name: "event" | "id", value: unknown): string {
  if (typeof value !== "string") throw new TypeError(`SSE ${name} must be a string`);
  // A line break would end the field early and let the rest be read as other fields.
  if (FIELD_FORBIDDEN.test(value)) throw new TypeError(`SSE ${name} must not contain CR, LF or NUL`);
  return value;
}

function dataText(data: unknown): string {
  if (typeof data === "string") return data;
  const json = JSON.stringify(data);
  if (json === undefined) throw new TypeError("SSE data must be a string or a JSON value");
  return json;
}

/** The wire text of one event, ending in the blank line that dispatches it ("" for an empty event). */
export function formatSseEvent(event: SseEvent | string): string {
  if (typeof event === "string") return prefixedLines("data: ", event) + "\n";
  if (event === null || typeof event !== "object") throw new TypeError("an SSE event must be a string or an object");
  let out = "";
  if (event.comment !== undefined) {
    if (typeof event.comment !== "string") throw new TypeError("SSE comment must be a string");
    out += prefixedLines(": ", event.comment);
  }
  if (event.event !== undefined) out += "event: " + fieldValue("event", event.event) + "\n";
  if (event.id !== undefined) out += "id: " + fieldValue("id", event.id) + "\n";
  if (event.retry !== undefined) {
    const retry = event.retry;
    if (typeof retry !== "number" || !Number.isSafeInteger(retry) || retry < 0) throw new TypeError("SSE retry must be a non-negative integer");
    out += "retry: " + retry + "\n";
  }
  if (event.data !== undefined) out += prefixedLines("data: ", dataText(event.data));
  return out === "" ? "" : out + "\n";
}

