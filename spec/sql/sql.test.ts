// lib/sql: the `sql` tag shared by keel/postgres and keel/sqlite. Values are parameters, never
// text; identifiers and lists go through helpers; rendering per dialect; limits.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { quoteIdentifier, renderSql, sql, SqlIdentifier, type SqlDialect } from "../../lib/sql/index.js";

const pg: SqlDialect = { placeholder: (n) => "$" + n, maxParameters: 65535 };
const lite: SqlDialect = { placeholder: () => "?", maxParameters: 32766 };

describe("lib/sql: the tag", () => {
  it("every value is a parameter, whatever it holds", () => {
    const evil = "'; drop table users; --";
    const r = renderSql(sql`select * from users where email = ${evil} and id = ${7}`, pg);
    assert.equal(r.text, "select * from users where email = $1 and id = $2");
    assert.deepEqual(r.values, [evil, 7]);
    assert.equal(renderSql(sql`select ${1}, ${2}`, lite).text, "select ?, ?");
  });

  it("refuses to be called as a function with a plain array (no raw strings)", () => {
    const call = sql as unknown as (strings: readonly string[], ...values: unknown[]) => unknown;
    assert.throws(() => call(["select 1; drop table users"]), /template tag/);
    assert.throws(() => call("select 1" as never), /template tag/);
    assert.throws(() => renderSql({ strings: ["x"], values: [] } as never, pg), /expected an sql`` fragment/);
  });

  it("sql.id quotes identifiers (schema.table), doubling quotes; refuses empty parts, NUL and over-long names", () => {
    assert.equal(renderSql(sql`select * from ${sql.id("public.users")}`, pg).text, 'select * from "public"."users"');
    assert.equal(quoteIdentifier(new SqlIdentifier('we"ird')), '"we""ird"');
    for (const bad of ["", "a..b", "x\0y", "n".repeat(64)]) assert.throws(() => sql.id(bad), TypeError, JSON.stringify(bad));
  });

  it("sql.list is one parameter per element and refuses an empty list", () => {
    const r = renderSql(sql`select * from t where id in ${sql.list([3, 4, 5])} and x = ${"y"}`, pg);
    assert.equal(r.text, "select * from t where id in ($1, $2, $3) and x = $4");
    assert.deepEqual(r.values, [3, 4, 5, "y"]);
    assert.throws(() => sql.list([]), /non-empty/);
  });

  it("fragments nest and join, numbering parameters in order; sql.empty adds nothing", () => {
    const filters = [sql`a = ${1}`, sql`b = ${2}`];
    const where = sql`where ${sql.join(filters, " and ")}`;
    const r = renderSql(sql`select * from t ${where} ${sql.empty}limit ${10}`, pg);
    assert.equal(r.text, "select * from t where a = $1 and b = $2 limit $3");
    assert.deepEqual(r.values, [1, 2, 10]);
    assert.equal(renderSql(sql.join([]), pg).text, "");
    assert.throws(() => sql.join(["x" as never]), /every element must be an sql`` fragment/);
  });

  it("limits: the dialect's parameter maximum and the nesting depth", () => {
    const many = Array.from({ length: 32767 }, (_, i) => i);
    assert.throws(() => renderSql(sql`select ${sql.list(many)}`, lite), /32767 parameters; at most 32766/);
    assert.equal(renderSql(sql`select ${sql.list(many)}`, pg).values.length, 32767);
    let deep = sql`x`;
    for (let i = 0; i < 40; i++) deep = sql`(${deep})`;
    assert.throws(() => renderSql(deep, pg), /nest deeper than 32/);
  });
});
