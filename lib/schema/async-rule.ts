// What the kernel knows of async rules (keel/schema runs them): the rule value `t` stores under
// `x-keel-async`, and the error an adapter failure becomes, which the extractors map to 500/503.

export type AsyncRule =
  | { readonly kind: "unique"; readonly table: string; readonly column: string; readonly message?: string }
  | { readonly kind: "custom"; readonly name: string };

export const ASYNC_KEYWORD = "x-keel-async";

export class SchemaAsyncRuleError extends Error {
  constructor(
    readonly reason: "timeout" | "failed" | "missing_adapter",
    readonly rule: string,
    readonly field: string,
    options?: { cause?: unknown },
  ) {
    super(`async rule ${rule} on ${field === "" ? "the value" : field}: ${reason}`, options);
    this.name = "SchemaAsyncRuleError";
  }
}
