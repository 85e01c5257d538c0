// Line-based comparison of two texts: the common head and tail are set aside, the middle is
// aligned by a longest-common-subsequence table when it is small enough (at most 4 million
// cells, ~16 MB), and otherwise reported as all removed then all added.
export interface LineChange {
  op: "-" | "+";
  /** 1-based line number on its own side (recorded for "-", replayed for "+"). */
  line: number;
  text: string;
}

const MAX_LCS_CELLS = 4_000_000;

export function diffLines(recorded: string, replayed: string): LineChange[] {
  const a = recorded.split("\n");
  const b = replayed.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const out: LineChange[] = [];
  if ((x.length + 1) * (y.length + 1) > MAX_LCS_CELLS) {
    x.forEach((text, i) => out.push({ op: "-", line: head + i + 1, text }));
    y.forEach((text, i) => out.push({ op: "+", line: head + i + 1, text }));
    return out;
  }
  // lcs[i][j]: length of the LCS of x[i..] and y[j..], in one flat array.
  const w = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      i++;
      j++;
    } else if (i < x.length && (j === y.length || lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) {
      // Removals before additions at the same place, as diff(1) prints them.
      out.push({ op: "-", line: head + i + 1, text: x[i]! });
      i++;
    } else {
      out.push({ op: "+", line: head + j + 1, text: y[j]! });
      j++;
    }
  }
  return out;
}
