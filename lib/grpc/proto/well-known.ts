// The common google/protobuf/*.proto files, built in so `import "google/protobuf/empty.proto";`
// works without shipping them. They are plain messages here: no special JSON mapping is applied
// (a Timestamp decodes as { seconds: "…", nanos: n }, as @grpc/proto-loader gives it).

const header = (name: string) => `syntax = "proto3";\npackage google.protobuf;\n// built-in ${name}\n`;

export const WELL_KNOWN_PROTOS: ReadonlyMap<string, string> = new Map([
  ["google/protobuf/empty.proto", header("empty.proto") + "message Empty {}\n"],
  ["google/protobuf/timestamp.proto", header("timestamp.proto") + "message Timestamp { int64 seconds = 1; int32 nanos = 2; }\n"],
  ["google/protobuf/duration.proto", header("duration.proto") + "message Duration { int64 seconds = 1; int32 nanos = 2; }\n"],
  ["google/protobuf/any.proto", header("any.proto") + "message Any { string type_url = 1; bytes value = 2; }\n"],
  ["google/protobuf/field_mask.proto", header("field_mask.proto") + "message FieldMask { repeated string paths = 1; }\n"],
  [
    "google/protobuf/wrappers.proto",
    header("wrappers.proto") +
      [["Double", "double"], ["Float", "float"], ["Int64", "int64"], ["UInt64", "uint64"], ["Int32", "int32"], ["UInt32", "uint32"], ["Bool", "bool"], ["String", "string"], ["Bytes", "bytes"]]
        .map(([name, type]) => `message ${name}Value { ${type} value = 1; }\n`)
        .join(""),
  ],
  [
    "google/protobuf/struct.proto",
    header("struct.proto") +
      `message Struct { map<string, Value> fields = 1; }
message Value {
  oneof kind {
    NullValue null_value = 1;
    double number_value = 2;
    string string_value = 3;
    bool bool_value = 4;
    Struct struct_value = 5;
    ListValue list_value = 6;
  }
}
enum NullValue { NULL_VALUE = 0; }
message ListValue { repeated Value values = 1; }
`,
  ],
]);
