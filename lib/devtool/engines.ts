// Whether a Node version is on a line package.json `engines.node` names. keel writes its range
// as `20.x || 22.x || 24.x || 26.x`; this reads that form and `>=N` / `^N` / `N`, and says
// "unknown" for anything else rather than guess.

/** true / false, or undefined when the range has a part this does not read. */
export function nodeSatisfies(version: string, range: string): boolean | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (!Number.isInteger(major)) return undefined;
  let answer = false;
  for (const raw of range.split("||")) {
    const part = raw.trim();
    const m = /^(>=|\^)?\s*(\d+)(?:\.(?:x|\*|\d+))?(?:\.(?:x|\*|\d+))?$/.exec(part);
    if (m === null) return undefined;
    const wanted = Number(m[2]);
    if (m[1] === ">=" ? major >= wanted : major === wanted) answer = true;
  }
  return answer;
}
