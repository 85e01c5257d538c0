// keel/grpc protobuf: parse proto3 files into descriptors and encode/decode messages with them.
export { parseProto, MAX_FIELD_NUMBER } from "./parser.js";
export { linkProtoFiles, camelCase, type LinkOptions } from "./link.js";
export { loadProto, loadProtoFile, loadProtoSource, type LoadProtoOptions, type ProtoSourceLoader } from "./load.js";
export { encode } from "./encode.js";
export { decode, defaultMessage, type DecodedMessage } from "./decode.js";
export { ProtoParseError, ProtobufDecodeError, ProtobufEncodeError, type SourcePosition } from "./errors.js";
export { MAX_NESTING_DEPTH } from "./wire-reader.js";
export { WELL_KNOWN_PROTOS } from "./well-known.js";
export type {
  EnumType, EnumValue, FieldDescriptor, FieldLabel, MessageType, MethodDescriptor, OneofDescriptor, OptionValue, Options,
  ProtoRoot, ScalarType, ServiceDescriptor, ValueType,
} from "./descriptors.js";
export type { ProtoFileNode } from "./syntax-tree.js";
