// What the parser produces for one .proto file: names as written, nothing resolved yet.
import type { OptionValue } from "./descriptors.js";

export interface Position {
  readonly line: number;
  readonly col: number;
}

export type MutableOptions = Record<string, OptionValue>;

export interface ImportNode {
  readonly path: string;
  readonly modifier: "none" | "public" | "weak";
  readonly at: Position;
}

export interface FieldNode {
  readonly name: string;
  readonly number: number;
  readonly label: "implicit" | "optional" | "repeated" | "map";
  /** The value type as written: a scalar keyword or a (possibly dotted, possibly absolute) name. */
  readonly typeName: string;
  readonly mapKey?: string;
  readonly oneof?: string;
  readonly options: MutableOptions;
  readonly at: Position;
  readonly typeAt: Position;
}

export interface ReservedRange {
  readonly from: number;
  /** Inclusive. */
  readonly to: number;
}

export interface MessageNode {
  readonly name: string;
  readonly fields: FieldNode[];
  readonly oneofs: Array<{ readonly name: string; readonly at: Position; readonly options: MutableOptions }>;
  readonly messages: MessageNode[];
  readonly enums: EnumNode[];
  readonly reservedRanges: ReservedRange[];
  readonly reservedNames: string[];
  readonly options: MutableOptions;
  readonly at: Position;
}

export interface EnumValueNode {
  readonly name: string;
  readonly number: number;
  readonly options: MutableOptions;
  readonly at: Position;
}

export interface EnumNode {
  readonly name: string;
  readonly values: EnumValueNode[];
  readonly reservedRanges: ReservedRange[];
  readonly reservedNames: string[];
  readonly options: MutableOptions;
  readonly at: Position;
}

export interface MethodNode {
  readonly name: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  readonly options: MutableOptions;
  readonly at: Position;
  readonly requestAt: Position;
  readonly responseAt: Position;
}

export interface ServiceNode {
  readonly name: string;
  readonly methods: MethodNode[];
  readonly options: MutableOptions;
  readonly at: Position;
}

export interface ProtoFileNode {
  readonly file: string;
  package: string;
  readonly imports: ImportNode[];
  readonly options: MutableOptions;
  readonly messages: MessageNode[];
  readonly enums: EnumNode[];
  readonly services: ServiceNode[];
}
