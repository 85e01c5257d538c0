// Incremental UTF-8 validation for text messages that arrive in pieces (frames, TCP chunks).
// A sequence is refused at its first bad byte (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF), so a bad message fails before its last fragment arrives. Runs of complete
// characters go to Node's native `isUtf8`; only the bytes around a split character go through
// the byte-wise state machine.
import { isUtf8 } from "node:buffer";

export class Utf8Validator {
  /** Continuation bytes still expected for the current character. */
  private needed = 0;
  /** Bounds of the next continuation byte (narrowed after E0, ED, F0, F4). */
  private lower = 0x80;
  private upper = 0xbf;

  reset(): void {
    this.needed = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }

  /** Feed the next bytes; false at the first byte that cannot be part of valid UTF-8. */
  update(bytes: Uint8Array): boolean {
    let i = 0;
    const length = bytes.length;
    // Finish a character split by the previous piece.
    while (this.needed > 0 && i < length) {
      if (!this.step(bytes[i]!)) return false;
      i++;
    }
    if (i === length) return true;
    // Bytes [i, boundary) hold complete characters only when `boundary` is a character start:
    // step back over at most 3 continuation bytes from the end to the last lead byte.
    let boundary = length;
    let back = length - 1;
    const stop = Math.max(i, length - 4);
    while (back >= stop && (bytes[back]! & 0xc0) === 0x80) back--;
    if (back >= stop && bytes[back]! >= 0xc0) boundary = back;
    if (boundary > i && !isUtf8(bytes.subarray(i, boundary))) return false;
    for (let j = boundary; j < length; j++) if (!this.step(bytes[j]!)) return false;
    return true;
  }

  /** True when the text ended on a character boundary. */
  finish(): boolean {
    return this.needed === 0;
  }

  private step(b: number): boolean {
    if (this.needed === 0) {
      if (b < 0x80) return true;
      if (b < 0xc2) return false; // continuation byte without a lead, or overlong C0/C1
      if (b < 0xe0) {
        this.needed = 1;
      } else if (b < 0xf0) {
        this.needed = 2;
        if (b === 0xe0) this.lower = 0xa0; // overlong 3-byte forms
        else if (b === 0xed) this.upper = 0x9f; // UTF-16 surrogates
      } else if (b < 0xf5) {
        this.needed = 3;
        if (b === 0xf0) this.lower = 0x90; // overlong 4-byte forms
        else if (b === 0xf4) this.upper = 0x8f; // above U+10FFFF
      } else {
        return false;
      }
      return true;
    }
    if (b < this.lower || b > this.upper) return false;
    this.lower = 0x80;
    this.upper = 0xbf;
    this.needed--;
    return true;
  }
}
