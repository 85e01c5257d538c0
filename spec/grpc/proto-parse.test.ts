// The proto3 parser and linker: the users.proto and kitchen-sink fixtures, scoping rules for type
// references, imports (relative, built-in, cycles), and errors that name file:line:col.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadProto, loadProtoFile, loadProtoSource, ProtoParseError, type ProtoRoot } from "../../lib/grpc/index.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));

function parseError(source: string, files: Record<string, string> = {}): ProtoParseError {
  try {
    loadProtoSource(source, "bad.proto", { load: (p) => files[p] });
  } catch (err) {
    assert.ok(err instanceof ProtoParseError, `expected ProtoParseError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected a parse error");
}

const P = 'syntax = "proto3";\n';

describe("users.proto", () => {
  const root = loadProtoFile(join(fixtures, "users.proto"));

  it("describes the service with gRPC paths and stream flags", () => {
    const svc = root.services.get("users.v1.Users");
    assert.ok(svc);
    assert.equal(svc.name, "Users");
    assert.deepEqual(
      svc.methods.map((m) => [m.name, m.requestType.fullName, m.responseType.fullName, m.requestStream, m.responseStream, m.path]),
      [
        ["GetUser", "users.v1.GetUserRequest", "users.v1.User", false, false, "/users.v1.Users/GetUser"],
        ["ListUsers", "users.v1.ListUsersRequest", "users.v1.User", false, true, "/users.v1.Users/ListUsers"],
      ],
    );
    assert.equal(svc.methods[0]!.responseType, root.messages.get("users.v1.User"));
  });

  it("gives fields camelCase property names, numbers and types", () => {
    const user = root.messages.get("users.v1.User")!;
    assert.deepEqual(user.fields.map((f) => [f.name, f.jsName, f.number, f.typeName, f.label]), [
      ["id", "id", 1, "string", "implicit"],
      ["name", "name", 2, "string", "implicit"],
      ["email", "email", 3, "string", "implicit"],
      ["created_at", "createdAt", 4, "int64", "implicit"],
    ]);
    assert.equal(root.files.get(join(fixtures, "users.proto"))?.options["java_package"], "dev.keel.users.v1");
  });

  it("keeps field names as written with keepCase", () => {
    const kept = loadProtoFile(join(fixtures, "users.proto"), { keepCase: true });
    assert.equal(kept.messages.get("users.v1.User")!.fields[3]!.jsName, "created_at");
  });
});

describe("kitchen-sink.proto", () => {
  const root: ProtoRoot = loadProtoFile(join(fixtures, "kitchen-sink.proto"));

  it("loads the relative import and the built-in google/protobuf files", () => {
    assert.ok(root.messages.has("shop.common.Money"));
    assert.ok(root.messages.has("google.protobuf.Empty"));
    assert.ok(root.messages.has("google.protobuf.Timestamp"));
    assert.equal(root.files.size, 4);
  });

  it("registers nested messages and enums under their full names", () => {
    for (const name of ["shop.v1.Scalars", "shop.v1.Repeats", "shop.v1.Order", "shop.v1.Order.Line", "shop.v1.Order.Money"]) assert.ok(root.messages.has(name), name);
    for (const name of ["shop.v1.Status", "shop.v1.Order.Line.Kind"]) assert.ok(root.enums.has(name), name);
  });

  it("resolves references innermost scope first, through packages, and absolute with a leading dot", () => {
    const order = root.messages.get("shop.v1.Order")!;
    const field = (n: string) => order.fields.find((f) => f.name === n)!;
    assert.equal(field("bank_transfer").typeName, "shop.v1.Order.Money"); // the nested Money, not shop.common.Money
    assert.equal(root.messages.get("shop.v1.Order.Line")!.fields.find((f) => f.name === "price")!.typeName, "shop.common.Money");
    assert.equal(field("created_at").typeName, "google.protobuf.Timestamp");
    assert.equal(field("default_kind").typeName, "shop.v1.Order.Line.Kind");
    assert.equal(field("parent").typeName, "shop.v1.Order");
    const parent = field("parent").type;
    assert.equal(parent.kind === "message" && parent.message, order); // recursive reference, same object
  });

  it("describes labels, maps, oneofs and packing", () => {
    const order = root.messages.get("shop.v1.Order")!;
    const field = (n: string) => order.fields.find((f) => f.name === n)!;
    assert.equal(field("note").label, "optional");
    assert.equal(field("lines").label, "repeated");
    assert.equal(field("lines").packed, false); // messages are never packed
    assert.deepEqual([field("labels").label, field("labels").mapKey, field("labels").typeName], ["map", "string", "string"]);
    assert.deepEqual([field("lines_by_position").mapKey, field("lines_by_position").typeName], ["int32", "shop.v1.Order.Line"]);
    assert.deepEqual(order.oneofs.map((o) => [o.name, o.fields.map((f) => f.jsName)]), [["payment", ["cardToken", "bankTransfer", "free"]]]);
    assert.equal(field("card_token").oneof, "payment");
    assert.deepEqual(order.fieldsByNumber.map((f) => f.number), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    const repeats = root.messages.get("shop.v1.Repeats")!;
    assert.deepEqual(repeats.fields.map((f) => [f.name, f.packed]), [
      ["packed_ints", true], ["unpacked_ints", false], ["zigzags", true], ["doubles", true], ["strings", false],
      ["blobs", false], ["statuses", true], ["fixeds", true], ["flags", true],
    ]);
  });

  it("keeps enum aliases and negative values", () => {
    const status = root.enums.get("shop.v1.Status")!;
    assert.equal(status.numberOf.get("STATUS_ENABLED"), 1);
    assert.equal(status.nameOf.get(1), "STATUS_ACTIVE");
    assert.equal(status.nameOf.get(-1), "STATUS_DELETED");
    assert.equal(status.options["allow_alias"], true);
  });

  it("describes streaming in every direction and keeps options", () => {
    const shop = root.services.get("shop.v1.Shop")!;
    assert.deepEqual(shop.methods.map((m) => [m.path, m.requestStream, m.responseStream]), [
      ["/shop.v1.Shop/GetOrder", false, false],
      ["/shop.v1.Shop/Watch", false, true],
      ["/shop.v1.Shop/Upload", true, false],
      ["/shop.v1.Shop/Chat", true, true],
    ]);
    assert.equal(shop.methods[1]!.options["deprecated"], true);
    assert.equal(shop.methods[2]!.requestType.fullName, "shop.v1.Order.Line");
    assert.equal(shop.options["deprecated"], false);
    const fileOptions = root.files.get(join(fixtures, "kitchen-sink.proto"))!.options;
    assert.equal(fileOptions["optimize_for"], "SPEED");
    assert.deepEqual(fileOptions["(my.custom).opt"], { aggregate: 'a : 1 b : "x"' });
  });
});

describe("imports through a loader callback", () => {
  it("resolves relative to the importing file, then from the root", () => {
    const files: Record<string, string> = {
      "api/main.proto": P + 'package api; import "types/a.proto"; import "shared/b.proto"; message M { t.A a = 1; s.B b = 2; }',
      "api/types/a.proto": P + "package t; message A {}",
      "shared/b.proto": P + "package s; message B {}",
    };
    const root = loadProto("api/main.proto", { load: (p) => files[p] });
    assert.deepEqual([...root.files.keys()].sort(), ["api/main.proto", "api/types/a.proto", "shared/b.proto"]);
  });

  it("loads a file imported twice once", () => {
    const files: Record<string, string> = {
      "a.proto": P + 'import "c.proto"; import "b.proto"; message A { C c = 1; }',
      "b.proto": P + 'import "c.proto"; message B { C c = 1; }',
      "c.proto": P + "message C {}",
    };
    assert.equal(loadProto("a.proto", { load: (p) => files[p] }).messages.size, 3);
  });

  it("reports a missing import and an import cycle at the import statement", () => {
    const missing = parseError(P + '\nimport "nope.proto";');
    assert.equal(missing.message, 'bad.proto:3:1: cannot find import "nope.proto"');
    const cycle = parseError(P + 'import "x.proto";', { "x.proto": P + 'import "bad.proto";', "bad.proto": "" });
    assert.match(cycle.message, /^x\.proto:2:1: import cycle: bad\.proto -> x\.proto -> bad\.proto$/);
  });
});

describe("parse and link errors carry file:line:col", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["missing syntax", "message A {}", /^bad\.proto:1:1: expected syntax = "proto3"/],
    ["proto2", 'syntax = "proto2";', /^bad\.proto:1:10: only proto3 is supported/],
    ["missing semicolon", P + "message A {\n  int32 x = 1\n}", /^bad\.proto:4:1: expected ";" but found "}"/],
    ["unknown type", P + "message A {\n  Nope x = 1;\n}", /^bad\.proto:3:3: unknown type "Nope"/],
    ["field number 0", P + "message A { int32 x = 0; }", /^bad\.proto:2:23: field number 0 is out of range/],
    ["field number 2^29", P + "message A { int32 x = 536870912; }", /^bad\.proto:2:23: field number 536870912 is out of range/],
    ["field number 19000", P + "message A { int32 x = 19000; }", /^bad\.proto:2:23: field numbers 19000 to 19999 are reserved/],
    ["field number 19999", P + "message A { int32 x = 19999; }", /reserved by protobuf/],
    ["duplicate number", P + "message A {\n int32 x = 1;\n int32 y = 1;\n}", /^bad\.proto:4:2: field number 1 is used by both "x" and "y"/],
    ["duplicate name", P + "message A { int32 x = 1; string x = 2; }", /^bad\.proto:2:33: "x" is already defined/],
    ["reserved number", P + "message A { reserved 5 to 7; int32 x = 7; }", /uses reserved number 7/],
    ["reserved name", P + 'message A { reserved "x"; int32 x = 1; }', /field name "x" is reserved/],
    ["enum first value", P + "enum E {\n  A = 1;\n}", /^bad\.proto:3:3: the first value of enum "E" must be 0/],
    ["enum alias without option", P + "enum E { A = 0; B = 0; }", /reuses value 0/],
    ["required", P + "message A { required int32 x = 1; }", /required fields are not allowed/],
    ["bad map key", P + "message A { map<double, int32> m = 1; }", /^bad\.proto:2:17: invalid map key type "double"/],
    ["repeated in oneof", P + "message A { oneof o { repeated int32 x = 1; } }", /cannot be repeated/],
    ["packed string", P + "message A { repeated string s = 1 [packed = true]; }", /\[packed\] applies only/],
    ["unterminated comment", P + "/* never\nclosed", /^bad\.proto:2:1: unterminated block comment/],
    ["unterminated string", P + 'package "x', /^bad\.proto:2:9: unterminated string literal/],
    ["enum as rpc type", P + "enum E { Z = 0; } message M {} service S { rpc X(E) returns (M); }", /request type must be a message/],
    ["partial resolution", P + "package a.b; message M {} message N { b.Missing m = 1; }", /"b\.Missing" resolved to "a\.b\.Missing", which is not defined/],
    ["duplicate across files", P + 'import "o.proto"; message A {}', /"A" is already defined in/],
    ["__proto__ field", P + "message A { int32 __proto__ = 1; }", /"__proto__" cannot be used/],
    ["camelCase clash", P + "message A { int32 foo_bar = 1; int32 fooBar = 2; }", /both become the property "fooBar"/],
  ];
  for (const [name, source, expected] of cases) {
    it(name, () => {
      assert.match(parseError(source, { "o.proto": P + "message A {}" }).message, expected);
    });
  }

  it("accepts the field number limits themselves", () => {
    const root = loadProtoSource(P + "message A { int32 a = 1; int32 b = 18999; int32 c = 20000; int32 d = 536870911; }");
    assert.deepEqual(root.messages.get("A")!.fields.map((f) => f.number), [1, 18999, 20000, 536870911]);
  });

  it("reports line and column through comments", () => {
    const err = parseError(P + "// one\n/* two\n three */ message A {\n  // x\n  int32 x = 1 junk;\n}");
    assert.equal(err.line, 6);
    assert.equal(err.col, 15);
    assert.equal(err.file, "bad.proto");
    assert.match(err.reason, /expected ";" but found "junk"/);
  });

  it("treats optional, repeated, stream as names where a name is expected", () => {
    const root = loadProtoSource(P + "message optional {} message M { optional optional = 1; repeated optional stream = 2; int32 repeated = 3; }\nservice S { rpc R(stream) returns (M); }\nmessage stream {}");
    const m = root.messages.get("M")!;
    assert.deepEqual(m.fields.map((f) => [f.name, f.label, f.typeName]), [["optional", "implicit", "optional"], ["stream", "repeated", "optional"], ["repeated", "implicit", "int32"]]);
    assert.equal(root.services.get("S")!.methods[0]!.requestStream, false);
  });
});
