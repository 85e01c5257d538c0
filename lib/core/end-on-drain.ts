// Stream bodies that must not outlive the listener: an event stream or any other answer that
// stays open until told to stop would hold the graceful drain until its deadline and then be cut
// off mid-message. A body (a Readable or an async iterable) that carries a method under the
// `endOnDrain` symbol asks the writer to call it when the listener stops accepting, or at once
// when it starts after that; the method ends the body after what was already sent. The writer
// recognises the symbol, not a class, so the kernel knows no kind of stream (keel/sse uses it).
import { LOG_LEVELS, type Logger } from "../util/logger.js";

/**
 * The key of the method a stream body carries to be ended when the app drains. A registered
 * symbol, so a body made by another copy of keel is recognised too.
 */
export const endOnDrain: unique symbol = Symbol.for("keel.endOnDrain");

/** A stream body ended when the app drains: `[endOnDrain]()` ends it after what was sent. */
export interface EndsOnDrain {
  [endOnDrain](): void;
}

/** Whether a stream body asked to be ended when the app drains. */
export function endsOnDrain(body: object): body is EndsOnDrain {
  return typeof (body as Partial<EndsOnDrain>)[endOnDrain] === "function";
}

/** End one body; a method that throws is logged, so it cannot stop the drain or the others. */
export function endBodyOnDrain(body: EndsOnDrain, logger: Logger): void {
  try {
    body[endOnDrain]();
  } catch (err) {
    if (LOG_LEVELS.error >= logger.level) logger.log(LOG_LEVELS.error, "ending a stream on drain failed", { message: (err as Error)?.message ?? String(err) });
  }
}
