// errorBodyJson writes the uniform body by hand (jsonString for each string) instead of
// JSON.stringify of the whole body: the text must be exactly what JSON.stringify writes, for
// every error shape and string, in both modes, whatever came before.
import assert from "node:assert/strict";
import { it } from "node:test";
import { ApiError, errorBodyJson, MASKED_MESSAGE, newErrorId, type ValidationField } from "../../lib/core/errors.js";
import { jsonString } from "../../lib/util/json-string.js";

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

it("quotes strings exactly as JSON.stringify does, hostile ones included", () => {
  const hostile = [
    "", "plain", '"', "\\", "\\\"", "\u0000", "\u0001\u001f", "\b\f\n\r\t", "\u007f", "\u2028\u2029",
    "\ud800", "\udfff", "\ud83d\ude00", "a\ud83d", "\ude00b", "\udc00\ud800", "é ü ß 中文", "</script>",
    "x".repeat(41) + '"', "x".repeat(42), "x".repeat(100) + "\ud800", "y".repeat(200) + "\n", "\u00ff\u0100",
  ];
  for (let c = 0; c < 0x10000; c += 7) hostile.push(String.fromCharCode(c), "a".repeat(50) + String.fromCharCode(c));
  for (const s of hostile) assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s));
  for (const s of hostile) {
    const err = ApiError.validation([{ field: s, code: s, message: s }], s);
    const id = newErrorId();
    assert.equal(errorBodyJson(err, id, false), reference(err, id, false));
  }
});

it("writes field items off the usual shape as JSON.stringify does", () => {
  class Item {
    constructor(readonly field: string, readonly code: string, readonly message: string) {}
    toJSON(): object {
      return { field: this.field.toUpperCase() };
    }
  }
  const inherited = Object.assign(Object.create({ extra: 1 }), { field: "a", code: "b", message: "c" });
  const odd = [
    [{ field: "a", code: "b", message: "c", params: { min: 8 } }],
    [{ code: "b", field: "a", message: "c" }],
    [{ field: "a", code: "b" }],
    [{ field: "a", code: 1, message: "c" }],
    [{ field: "a", code: "b", message: undefined }],
    [new Item("a", "b", "c")],
    [inherited],
    [null],
    [{ field: "a", code: "b", message: "c" }, "not an item"],
    Object.assign([{ field: "a", code: "b", message: "c" }], { toJSON: () => "list" }),
    // eslint-disable-next-line no-sparse-arrays
    [, { field: "a", code: "b", message: "c" }],
  ] as unknown as ValidationField[][];
  for (const fields of odd) {
    const err = ApiError.validation(fields);
    const id = newErrorId();
    assert.equal(errorBodyJson(err, id, false), reference(err, id, false), JSON.stringify(fields));
  }
});

it("writes the usual bodies (404, 422 with its fields) without JSON.stringify", () => {
  const errors = [
    ApiError.notFound(),
    ApiError.validation([
      { field: "email", code: "email", message: "must be a valid email address" },
      { field: "password", code: "length", message: "must be at least 8 characters" },
    ]),
  ];
  const expected = errors.map((err) => reference(err, "err_0123456789abcdef0123456789abcdef", false));
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    calls++;
    return stringify(...args);
  }) as typeof stringify;
  let bodies: string[];
  try {
    bodies = errors.map((err) => errorBodyJson(err, "err_0123456789abcdef0123456789abcdef", false));
  } finally {
    JSON.stringify = stringify;
  }
  assert.deepEqual(bodies, expected);
  assert.equal(calls, 0);
});

it("captures no stack frames for a client error, and keeps them for a server error", () => {
  const limit = Error.stackTraceLimit;
  assert.equal(ApiError.validation([]).stack, "ApiError: Request validation failed");
  assert.match(ApiError.internal("x").stack ?? "", /\n\s+at /);
  assert.equal(Error.stackTraceLimit, limit);
});
