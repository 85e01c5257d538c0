// The two value rules whose arithmetic is not a one-liner, shared by the code generator and
// keel/schema's closure compiler: string length in code points and multipleOf on floats.

const HIGH_SURROGATE = /[\uD800-\uDBFF]/; // no u flag: matches lone UTF-16 units

/** Code points, not UTF-16 units (2020-12 counts characters). The native regex scan is the fast path. */
export function codePointLength(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n--;
      i++;
    }
  }
  return n;
}

export function isMultipleOf(v: number, m: number): boolean {
  // Integers: the remainder is exact in binary floating point, whatever their size (2^53 / 3
  // rounds to x.5, which the tolerance below would accept).
  if (Number.isInteger(v) && Number.isInteger(m)) return v % m === 0;
  const q = v / m;
  // Overflow (1e308 / 0.5): an integer is a multiple of any m whose inverse is an integer.
  if (!Number.isFinite(q)) return Number.isInteger(v) && Number.isInteger(1 / m);
  if (Number.isInteger(q)) return true;
  // Decimal steps like 0.01 are not exact in binary: accept a quotient within rounding error.
  return Math.abs(q - Math.round(q)) < 1e-9 * Math.max(1, Math.abs(q)) && Math.abs(v - Math.round(q) * m) < Math.abs(m) * 1e-9;
}
