// The shapes that cross the client's boundary.

/** A command argument: strings are sent as UTF-8, Buffers as they are, numbers as decimal text. */
export type RedisArg = string | number | Buffer;

/**
 * A decoded reply. Bulk strings are UTF-8 strings from `command()` and Buffers from
 * `commandBuffer()`; integers are numbers (bigints beyond 2^53, and for RESP3 big numbers);
 * nil and RESP3 null are null; RESP3 maps are null-prototype objects, doubles numbers, booleans
 * booleans, sets arrays.
 */
export type RedisReply = string | number | bigint | null | Buffer | boolean | RedisReply[] | { [key: string]: RedisReply };
