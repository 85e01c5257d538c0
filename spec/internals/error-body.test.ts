// errorBodyJson writes the uniform body from a cached head (the text before the error_id, per
// type and message) instead of JSON.stringify of the whole body: the text must be exactly what
// JSON.stringify writes, for every error shape, in both modes, whatever came before.
import assert from "node:assert/strict";
import { it } from "node:test";
import { ApiError, errorBodyJson, MASKED_MESSAGE, newErrorId, type ValidationField } from "../../lib/core/errors.js";

function reference(err: ApiError, errorId: string, production: boolean): string {
  const message = production && err.status >= 500 ? MASKED_MESSAGE : err.message;
  const error: { type: string; message: string; fields?: ValidationField[] } = { type: err.type, message };
  if (err.fields !== undefined) error.fields = err.fields;
  return JSON.stringify({ error, error_id: errorId });
}

const ERRORS = [
  ApiError.notFound(),
  ApiError.validation([
    { field: "email", code: "email", message: "must be a valid email address" },
    { field: "password", code: "length", message: "must be at least 8 characters" },
  ]),
  ApiError.validation([{ field: 'a["b \\"c"]', code: "x\u0001", message: "lone \ud800 and \u2028" }]),
  ApiError.validation([]),
  ApiError.internal("secret \n detail"),
  new ApiError(418, 'odd "type"', "odd\tmessage"),
  ApiError.notFound(),
  ApiError.badRequest(""),
  new ApiError(400, "", ""),
];

it("writes what JSON.stringify writes, for every shape, in both modes, in any order", () => {
  for (let round = 0; round < 3; round++) {
    for (const production of [false, true]) {
      for (const err of round === 1 ? ERRORS.slice().reverse() : ERRORS) {
        const id = newErrorId();
        const body = errorBodyJson(err, id, production);
        assert.equal(body, reference(err, id, production));
        assert.deepEqual(JSON.parse(body).error_id, id);
      }
    }
  }
});

it("escapes an error_id that newErrorId did not make", () => {
  const err = ApiError.notFound();
  for (const id of ['not "an" id', "err_0", newErrorId().toUpperCase()]) {
    assert.equal(errorBodyJson(err, id, false), reference(err, id, false));
  }
});

it("follows a message changed on a shared error", () => {
  const err = ApiError.notFound();
  const first = newErrorId();
  assert.equal(errorBodyJson(err, first, false), reference(err, first, false));
  (err as { message: string }).message = "Gone elsewhere";
  const second = newErrorId();
  assert.equal(JSON.parse(errorBodyJson(err, second, false)).error.message, "Gone elsewhere");
  assert.equal(errorBodyJson(err, second, false), reference(err, second, false));
});

it("stays valid JSON when a JavaScript caller gives a non-string type or message", () => {
  const err = new ApiError(400, 42 as unknown as string, undefined as unknown as string);
  const id = newErrorId();
  assert.equal(errorBodyJson(err, id, false), reference(err, id, false));
});
