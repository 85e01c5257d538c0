// The per-route transaction option, for any SqlDatabase (keel/postgres, keel/sqlite):
// `transaction(db)` as a route or group layer runs the rest of the chain inside `db.begin`, and
// the `tx()` extractor hands the handler that transaction. The reply decides the outcome:
//   - a success (status < 400) commits, and the answer is sent after the commit, so a client that
//     got a 2xx can read what it wrote; a failed commit (a serialization failure...) becomes the
//     answer instead (thrown on: mapDatabaseError makes it a 503, 409...);
//   - an error reply rolls back: thrown or returned, 4xx or 5xx (the chain turns a throw into a
//     reply before this layer sees it);
//   - a client gone before the commit rolls back: it will never learn the outcome, and its retry
//     must not find the work done;
//   - a streamed body (the handler may read through `tx` while it streams) keeps the transaction
//     open until the response is over: committed when it was sent in full, rolled back when the
//     stream failed or the client went away. A commit failing then is logged (warn): the status
//     line is gone.
// Never left open: every path ends in `db.begin`'s commit or rollback.
import { ApiError, extractor, type Context, type Extractor, type Layer, type Reply } from "../index.js";
import { isStreamBody } from "../plugin.js";
import type { SqlDatabase, SqlTransaction } from "./database.js";

/** `ctx.locals` key of the route's transaction while the handler runs. */
export const TRANSACTION_KEY = "keel.sql.transaction";

/** Thrown inside `db.begin` to roll back with the reply already decided. */
const ROLLBACK = Symbol("keel.sql.rollback");

function clientGone(ctx: Context): boolean {
  const res = ctx.res;
  if (res === null || res.writableFinished) return false;
  // An HTTP/2 compatibility response has no `closed`/`destroyed`: its stream tells.
  return res.closed === true || res.destroyed === true || (res as { stream?: { closed?: boolean } }).stream?.closed === true;
}

/** Whether the response went out in full (`app.inject` has no socket: collected means sent). */
function sentInFull(ctx: Context): boolean {
  return ctx.res === null || ctx.res.writableFinished;
}

/**
 * A layer running the route in one transaction of `db`: committed when the reply is a success,
 * rolled back on any error reply or when the client went away; the handler gets it with `tx()`.
 *
 * @example
 * route.post("/users", { layers: [transaction(db)] }, [tx(), json(newUser)], async (tx, body) => {
 *   const [user] = await tx.sql`insert into users (email) values (${body.email}) returning id`;
 *   await tx.sql`insert into audit (user_id) values (${user!.id})`;
 *   return created(user);
 * })
 */
export function transaction(db: Pick<SqlDatabase, "begin">): Layer {
  return function transaction(ctx, next) {
    return new Promise<Reply>((resolve, reject) => {
      let answer: Reply | undefined;
      let streamed = false;
      const done = db.begin(async (t: SqlTransaction) => {
        ctx.locals[TRANSACTION_KEY] = t;
        const reply = await next(ctx);
        answer = reply;
        if (reply.status >= 400 || clientGone(ctx)) throw ROLLBACK;
        if (!isStreamBody(reply.rawBody)) return;
        // Streamed: answer now, end the transaction when the response is over.
        streamed = true;
        resolve(reply);
        const full = await new Promise<boolean>((settle) =>
          ctx.afterResponse(() => {
            settle(sentInFull(ctx));
            // Returned to afterResponse, which logs (warn) a commit that fails now.
            return done.then(undefined, (err: unknown) => {
              if (err !== ROLLBACK) throw err;
            });
          }),
        );
        if (!full) throw ROLLBACK;
      });
      done.then(
        () => resolve(answer!),
        (err: unknown) => {
          // The decided error reply stands even when the rollback itself failed (a lost connection).
          if (answer !== undefined && (err === ROLLBACK || answer.status >= 400 || streamed)) resolve(answer);
          else reject(err);
        },
      );
    });
  };
}

/**
 * The route's transaction (see `transaction(db)`). A route without that layer answers 500: a
 * wiring mistake, named in the log.
 */
export function tx(): Extractor<SqlTransaction, false> {
  return extractor("transaction", (ctx) => {
    const t = ctx.locals[TRANSACTION_KEY];
    if (t === undefined) throw ApiError.internal(undefined, { detail: "tx() on a route without the transaction(db) layer" });
    return t as SqlTransaction;
  });
}
