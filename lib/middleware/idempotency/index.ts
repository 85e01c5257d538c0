// keel/middleware: idempotency(), one execution per Idempotency-Key, later duplicates replayed.
export { idempotency, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, type IdempotencyOptions, type IdempotencyRecord } from "./idempotency.js";
