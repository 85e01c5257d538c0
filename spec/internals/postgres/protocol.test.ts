// keel/postgres without a server: DATABASE_URL parsing and option checks, SCRAM's checks (RFC
// 7677's nonces; the login itself is proven against the server), the text array format,
// parameter encoding, and the message size bound.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { inspect } from "node:util";
import { connectPostgres, parsePostgresUrl } from "../../../lib/postgres/index.js";
import { parseArray, serializeArray } from "../../../lib/postgres/array.js";
import { decoderFor } from "../../../lib/postgres/decode.js";
import { encodeParameter } from "../../../lib/postgres/encode.js";
import { MessageReader, MessageTooLargeError } from "../../../lib/postgres/reader.js";
import { ScramSession } from "../../../lib/postgres/scram.js";
import { md5Password } from "../../../lib/postgres/md5.js";
import { resolvePostgresOptions } from "../../../lib/postgres/options.js";

describe("keel/postgres: DATABASE_URL", () => {
  it("parses postgres:// and postgresql://, percent-decoding user, password and database", () => {
    assert.deepEqual(parsePostgresUrl("postgres://us%40er:p%3Ass%2Fw@db.example:6543/my%20db?sslmode=verify-full&application_name=api&connect_timeout=3"), {
      host: "db.example",
      port: 6543,
      user: "us@er",
      password: "p:ss/w",
      database: "my db",
      sslmode: "verify-full",
      applicationName: "api",
      connectTimeoutMs: 3000,
    });
    assert.deepEqual(parsePostgresUrl("postgresql://[::1]/app?options=-c%20search_path%3Dapp"), { host: "::1", database: "app", options: "-c search_path=app" });
    assert.deepEqual(parsePostgresUrl("postgres://localhost"), { host: "localhost" });
  });

  it("refuses unknown parameters, bad values, other schemes and several hosts, never echoing the password", () => {
    const cases: [string, RegExp][] = [
      ["postgres://u:hunter2@h/db?sslmod=require", /unknown parameter "sslmod"/],
      ["postgres://u:hunter2@h/db?sslmode=always", /sslmode must be one of/],
      ["postgres://u:hunter2@h/db?connect_timeout=soon", /connect_timeout/],
      ["mysql://u:hunter2@h/db", /scheme/],
      ["postgres://u:hunter2@h1,h2/db", /several hosts/],
      ["postgres://u:hunter2@h:99999/db", /Invalid Postgres URL/],
      ["postgres://u:hunter2@h/db#frag", /fragment/],
    ];
    for (const [url, message] of cases) {
      assert.throws(() => parsePostgresUrl(url), (e: unknown) => e instanceof TypeError && message.test(e.message) && !e.message.includes("hunter2"), url);
    }
  });

  it("options over the URL, defaults last; statementTimeoutMs becomes a startup option; bad numbers refused", () => {
    const r = resolvePostgresOptions("postgres://u:pw@h:5433/d?application_name=a", { port: 5434, statementTimeoutMs: 250, options: "-c search_path=x" });
    assert.equal(r.connection.port, 5434);
    assert.equal(r.connection.user, "u");
    assert.equal(r.connection.database, "d");
    assert.equal(r.connection.sslmode, "prefer");
    assert.equal(r.connection.int8, "string");
    assert.equal(r.connection.backendOptions, "-c search_path=x -c statement_timeout=250");
    assert.equal(r.pool.max, 10);
    assert.throws(() => resolvePostgresOptions({ max: 0 }, undefined), /max must be an integer >= 1/);
    assert.throws(() => resolvePostgresOptions({ min: 5, max: 2 }, undefined), /min \(5\) must not exceed max \(2\)/);
    assert.throws(() => resolvePostgresOptions({ int8: "number" as never }, undefined), /int8/);
    assert.throws(() => resolvePostgresOptions({ statementCacheSize: 0 }, undefined), /statementCacheSize/);
  });

  it("connectPostgres is synchronous and lazy, and the password never shows in inspect or JSON", async () => {
    const db = connectPostgres("postgres://u:hunter2@127.0.0.1:1/db");
    assert.equal(db.dialect, "postgres");
    assert.doesNotMatch(inspect(db, { depth: 10, showHidden: true }), /hunter2/);
    assert.doesNotMatch(JSON.stringify(db), /hunter2/);
    assert.equal(db.stats().total, 0);
    await db.close();
  });
});

describe("keel/postgres: protocol pieces", () => {
  it("SCRAM-SHA-256 (RFC 7677's nonces): message shapes; a wrong server signature, a foreign nonce and a huge iteration count are refused", () => {
    // RFC 7677 section 3 (user "user", password "pencil"); Postgres sends an empty n=, which is part of the AuthMessage.
    const session = new ScramSession("pencil", "rOprNGfwEbeRWgbNEkqO");
    assert.equal(session.clientFirst().toString(), "n,,n=,r=rOprNGfwEbeRWgbNEkqO");
    const serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    const final = session.clientFinal(serverFirst).toString();
    assert.match(final, /^c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj\)hNlF\$k0,p=[A-Za-z0-9+/=]{44}$/);
    assert.throws(() => session.verifyServerFinal("v=" + Buffer.alloc(32).toString("base64")), /server signature is wrong/);
    assert.equal(session.verified, false);
    assert.throws(() => new ScramSession("x", "abc").clientFinal("r=zzz,s=AA==,i=4096"), /nonce/);
    assert.throws(() => new ScramSession("x", "abc").clientFinal("r=abcd,s=AA==,i=99999999"), /iteration/);
  });

  it("md5 password answer as the server computes it", () => {
    // md5(md5("p" + "u") as hex + salt), computed independently here.
    const inner = createHash("md5").update("pu").digest("hex");
    const expected = "md5" + createHash("md5").update(Buffer.concat([Buffer.from(inner), Buffer.from([1, 2, 3, 4])])).digest("hex");
    assert.equal(md5Password("u", "p", Buffer.from([1, 2, 3, 4])), expected);
    assert.match(md5Password("u", "p", Buffer.from([1, 2, 3, 4])), /^md5[0-9a-f]{32}$/);
  });

  it("text arrays: nesting, quoting, NULL vs \"NULL\", bounds; and back", () => {
    const int = decoderFor(1007, "string");
    assert.deepEqual(int("{{1,2},{3,NULL}}"), [[1, 2], [3, null]]);
    assert.deepEqual(parseArray('{"a\\"b","c\\\\d",NULL,"NULL",""}', (s) => s), ['a"b', "c\\d", null, "NULL", ""]);
    assert.deepEqual(parseArray("[2:3]={x,y}", (s) => s), ["x", "y"]);
    assert.throws(() => parseArray("{{{{{{{1}}}}}}}", (s) => s), /deeper than 6/);
    assert.equal(serializeArray([["a", null], ['q"', "b\\"]], String), '{{"a",NULL},{"q\\"","b\\\\"}}');
  });

  it("parameters: JSON for json/jsonb targets, array literals otherwise; Date, bytea, bigint, booleans; undefined refused", () => {
    assert.equal(encodeParameter([1, 2], 3802, 1), "[1,2]");
    assert.equal(encodeParameter([1, 2], 1007, 1), '{"1","2"}');
    assert.equal(encodeParameter({ a: 1 }, 0, 1), '{"a":1}');
    assert.equal(encodeParameter(true, 3802, 1), "true");
    assert.equal(encodeParameter(true, 16, 1), "t");
    assert.equal(encodeParameter(new Date(0), 1184, 1), "1970-01-01T00:00:00.000Z");
    assert.equal(encodeParameter(Buffer.from([0xde, 0xad]), 17, 1), "\\xdead");
    assert.equal(encodeParameter(12n, 20, 1), "12");
    assert.equal(encodeParameter(null, 25, 1), null);
    assert.throws(() => encodeParameter(undefined, 25, 3), /\$3 is undefined/);
    assert.throws(() => encodeParameter(new Date(NaN), 1184, 2), /invalid Date/);
    assert.throws(() => encodeParameter(Symbol("s"), 25, 1), /symbol/);
  });

  it("a message announcing more than maxMessageBytes is refused before it is buffered", () => {
    const reader = new MessageReader(1024);
    const header = Buffer.alloc(5);
    header[0] = 0x44;
    header.writeInt32BE(1_000_000_000, 1);
    assert.throws(() => reader.push(header, () => assert.fail("no message")), MessageTooLargeError);
    assert.equal(reader.pending, 0);
    const got: number[] = [];
    const ok = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
    reader.push(ok.subarray(0, 3), (type) => got.push(type));
    reader.push(ok.subarray(3), (type) => got.push(type));
    assert.deepEqual(got, [0x5a]);
  });
});
