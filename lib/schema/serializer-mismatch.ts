// What a compiled serializer is, and the error it throws for a value that does not fit its
// schema: apart from the serializer itself, so a response contract can recognise the error
// without importing the compiler.

/** Writes a value that fits its schema as JSON text. */
export type Serializer = (value: unknown) => string;

/** A value that does not fit its response schema. `path` is where (`users[3].email`, "" for the root). */
export class SerializationMismatch extends Error {
  readonly expected: string;
  readonly actual: string;
  readonly segments: Array<string | number> = [];

  constructor(expected: string, actual: string) {
    super(`expected ${expected}, got ${actual}`);
    this.name = "SerializationMismatch";
    this.expected = expected;
    this.actual = actual;
  }

  get path(): string {
    let out = "";
    for (const s of this.segments) out += typeof s === "number" ? `[${s}]` : out === "" ? s : `.${s}`;
    return out;
  }

  /** `at users[3].email: expected string, got number` */
  describe(): string {
    return `${this.path === "" ? "at the root" : `at ${this.path}`}: ${this.message}`;
  }
}
