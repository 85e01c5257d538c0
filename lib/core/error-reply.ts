// Any thrown value becomes the uniform error Reply, logged with its error_id (and the private
// detail, which never reaches the client).
import type { Context } from "./context.js";
import { errorBodyJson, newErrorId, toApiError } from "./errors.js";
import { LOG_LEVELS } from "../util/logger.js";
import { JSON_TYPE, Reply } from "./reply.js";

export function errorReply(ctx: Context, thrown: unknown): Reply {
  const rt = ctx.runtime;
  let err = toApiError(thrown, rt.errorMappers);
  if (rt.localize) err = rt.localize(err, ctx.req);
  const errorId = newErrorId();
  const reply = new Reply(err.status, errorBodyJson(err, errorId, rt.production), err.headers);
  reply.headers["content-type"] = JSON_TYPE;
  reply.error = err;
  reply.errorId = errorId;
  const level = err.status >= 500 ? LOG_LEVELS.error : LOG_LEVELS.debug;
  if (level >= rt.logger.level) {
    const cause = err.cause ?? thrown;
    rt.logger.log(level, err.status >= 500 ? "request failed" : "request rejected", {
      error_id: errorId,
      req_id: ctx.requestId || undefined,
      method: ctx.method,
      route: ctx.route?.pattern ?? ctx.path,
      status: err.status,
      type: err.type,
      message: err.message,
      detail: err.detail,
      // pino's `err` object ({ type, message, stack }: see logReplacer), so pino-pretty shows the stack.
      err: err.status >= 500 && cause instanceof Error ? cause : undefined,
    });
  }
  return reply;
}
