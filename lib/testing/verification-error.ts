// What verify() throws: an AssertionError (node:assert's), so a test runner reports it as a
// failed assertion, with the unmet expectations and the unmatched requests listed.
import { AssertionError } from "node:assert";

export class MockVerificationError extends AssertionError {
  readonly unmet: readonly string[];
  readonly unmatched: readonly string[];

  constructor(unmet: readonly string[], unmatched: readonly string[], unmatchedDropped: number) {
    const lines = ["mockServer: verification failed"];
    if (unmet.length > 0) lines.push(`unmet expectations (${unmet.length}):`, ...unmet.map((u) => `  - ${u}`));
    if (unmatched.length > 0 || unmatchedDropped > 0) {
      lines.push(`unmatched requests (${unmatched.length + unmatchedDropped}${unmatchedDropped > 0 ? `, the first ${unmatchedDropped} no longer kept` : ""}):`, ...unmatched.map((u) => `  - ${u}`));
    }
    super({ message: lines.join("\n") });
    this.name = "MockVerificationError";
    this.unmet = unmet;
    this.unmatched = unmatched;
  }
}
