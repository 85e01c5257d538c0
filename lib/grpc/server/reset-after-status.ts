// After a status sent while the client is still sending (the call ended early), ask the client
// to stop without error: RST_STREAM(NO_ERROR), which RFC 9113 §8.1 allows after a complete
// response. Only once nghttp2 has sent the frame that ends our side (the trailers-only HEADERS
// or the trailers): submitted any earlier, the reset can overtake that frame and the client sees
// a reset without a status (grpc-js reports INTERNAL, or waits for its deadline). Node 22 and 26
// do that to a HEADERS frame queued in the same tick, and every version to trailers still
// waiting for 'wantTrailers'. Node has no event for "END_STREAM sent", so `state.localClose` is
// polled: on the next turns of the loop (it usually takes one or two), then on a slower timer.
// A status that cannot go out within RESET_WAIT_MS (a client that sends but does not read our
// DATA) ends the stream with CANCEL instead.
import type { ServerHttp2Stream } from "node:http2";

const NGHTTP2_NO_ERROR = 0;
const NGHTTP2_CANCEL = 8;
const IMMEDIATE_POLLS = 8;
const POLL_MS = 50;
const RESET_WAIT_MS = 5000;
const MAX_POLLS = IMMEDIATE_POLLS + RESET_WAIT_MS / POLL_MS;

/** Reset `stream` with NO_ERROR once the status it carries has been sent (see above). */
export function resetAfterStatus(stream: ServerHttp2Stream, polls = 0): void {
  if (stream.destroyed || stream.closed || stream.readableEnded) return;
  if (stream.state.localClose === 1) {
    stream.close(NGHTTP2_NO_ERROR);
  } else if (polls < IMMEDIATE_POLLS) {
    setImmediate(resetAfterStatus, stream, polls + 1);
  } else if (polls < MAX_POLLS) {
    setTimeout(resetAfterStatus, POLL_MS, stream, polls + 1).unref();
  } else {
    stream.close(NGHTTP2_CANCEL);
  }
}
