// The linked shape of a set of .proto files: what the codec and the gRPC server work from.
// Every type reference is already resolved to its descriptor, so encoding and decoding never
// look a name up.

export type ScalarType =
  | "double" | "float"
  | "int32" | "int64" | "uint32" | "uint64" | "sint32" | "sint64"
  | "fixed32" | "fixed64" | "sfixed32" | "sfixed64"
  | "bool" | "string" | "bytes";

export const SCALAR_TYPES: ReadonlySet<string> = new Set<ScalarType>([
  "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
  "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
]);

/** Scalars that may be map keys (no floats, no bytes). */
export const MAP_KEY_TYPES: ReadonlySet<string> = new Set<ScalarType>([
  "int32", "int64", "uint32", "uint64", "sint32", "sint64",
  "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string",
]);

/** Option values as written: `option java_package = "x";`, `[deprecated = true]`. */
export type OptionValue = string | number | boolean | { readonly aggregate: string };
export type Options = Readonly<Record<string, OptionValue>>;

export interface EnumValue {
  readonly name: string;
  readonly number: number;
  readonly options: Options;
}

export interface EnumType {
  readonly kind: "enum";
  readonly name: string;
  /** Dotted name without the leading dot: `users.v1.User.Role`. */
  readonly fullName: string;
  readonly file: string;
  readonly values: readonly EnumValue[];
  /** Value name → number. */
  readonly numberOf: ReadonlyMap<string, number>;
  /** Number → the first value name declared with it (aliases share numbers). */
  readonly nameOf: ReadonlyMap<number, string>;
  readonly options: Options;
}

/** What a field (or a map's value) holds. */
export type ValueType =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "enum"; readonly enum: EnumType }
  | { readonly kind: "message"; readonly message: MessageType };

/**
 * - `implicit`: a plain proto3 field; the default value is not sent and is filled on decode.
 * - `optional`: explicit presence; absent stays `undefined`.
 * - `repeated`: an array. `map`: a null-prototype object keyed by the key's text.
 */
export type FieldLabel = "implicit" | "optional" | "repeated" | "map";

export interface FieldDescriptor {
  /** The name in the .proto file. */
  readonly name: string;
  /** The property name in JavaScript objects (camelCase unless loaded with `keepCase`). */
  readonly jsName: string;
  readonly number: number;
  readonly label: FieldLabel;
  readonly type: ValueType;
  /** The type as resolved, for messages and enums its full name; for scalars the scalar. */
  readonly typeName: string;
  /** For `map<K, V>`: the key scalar (`type` is then V). */
  readonly mapKey?: ScalarType;
  /** The oneof this field belongs to (its `jsName`), if any. Members have explicit presence. */
  readonly oneof?: string;
  /** Repeated scalars are written packed (the proto3 default, unless `[packed = false]`). */
  readonly packed: boolean;
  readonly options: Options;
}

export interface OneofDescriptor {
  readonly name: string;
  readonly jsName: string;
  /** Member fields, in declaration order. */
  readonly fields: readonly FieldDescriptor[];
}

export interface MessageType {
  readonly kind: "message";
  readonly name: string;
  readonly fullName: string;
  readonly file: string;
  /** In declaration order. */
  readonly fields: readonly FieldDescriptor[];
  /** Sorted by field number: the order fields are written in. */
  readonly fieldsByNumber: readonly FieldDescriptor[];
  readonly fieldOfNumber: ReadonlyMap<number, FieldDescriptor>;
  readonly oneofs: readonly OneofDescriptor[];
  readonly options: Options;
}

export interface MethodDescriptor {
  readonly name: string;
  readonly requestType: MessageType;
  readonly responseType: MessageType;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  /** The HTTP/2 path gRPC uses: `/users.v1.Users/GetUser`. */
  readonly path: string;
  readonly options: Options;
}

export interface ServiceDescriptor {
  readonly name: string;
  readonly fullName: string;
  readonly file: string;
  readonly methods: readonly MethodDescriptor[];
  readonly options: Options;
}

/** Everything defined by a .proto file and the files it imports. Keys are full names. */
export interface ProtoRoot {
  readonly messages: ReadonlyMap<string, MessageType>;
  readonly enums: ReadonlyMap<string, EnumType>;
  readonly services: ReadonlyMap<string, ServiceDescriptor>;
  /** Loaded files by path, each with its package and file-level options. */
  readonly files: ReadonlyMap<string, { readonly package: string; readonly options: Options }>;
}
