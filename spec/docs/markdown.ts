// What the docs test reads out of a markdown file: fenced code blocks with their docs-test
// markers, relative links, heading anchors (GitHub's slug rules) and text blocks (paragraphs,
// list items, tables) for the entry and feature lists. Line numbers are 1-based, as editors show.

/** A fenced ```ts / ```typescript block. */
export interface CodeBlock {
  file: string;
  /** Line of the opening fence. */
  line: number;
  /** The code, indentation of the fence removed, one entry per source line (line + 1 + i). */
  code: string[];
  /** "check", "skip" (with a reason) or "continues" (appended to the previous ts block). */
  mode: "check" | "skip" | "continues";
  reason?: string;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** A run of non-blank lines outside code fences, with the marker line before it, if any. */
export interface TextBlock {
  file: string;
  line: number;
  text: string;
  marker?: string;
}

export interface Problem {
  file: string;
  line: number;
  message: string;
}

export interface ParsedMarkdown {
  blocks: CodeBlock[];
  links: Link[];
  anchors: Set<string>;
  text: TextBlock[];
  problems: Problem[];
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)?.*$/;
const MARKER = /^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$/;
const TS_LANGS = new Set(["ts", "typescript"]);
/** Markers that describe the next text block (an entry or feature list), not a code block. */
export const LIST_MARKERS = new Set(["entries", "features"]);

/**
 * GitHub's heading slug: the rendered text lower-cased, everything but letters, marks, numbers,
 * connector punctuation (`_`), spaces and hyphens dropped, spaces turned into hyphens; a repeated
 * slug gets -1, -2... in order.
 */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML tags
    .replace(/[`*]/g, ""); // code and emphasis markers (underscores are kept, as GitHub keeps them)
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Inline code spans removed, so `[x](y)` shown as code is not a link. */
function withoutCode(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, (m) => " ".repeat(m.length));
}

export function parseMarkdown(file: string, source: string): ParsedMarkdown {
  const lines = source.split("\n");
  const out: ParsedMarkdown = { blocks: [], links: [], anchors: new Set(), text: [], problems: [] };
  const slugCounts = new Map<string, number>();
  let pendingMarker: { line: number; value: string } | undefined;
  let current: TextBlock | undefined;
  let i = 0;
  const endText = (): void => {
    if (current !== undefined) out.text.push(current);
    current = undefined;
  };
  const staleMarker = (): void => {
    if (pendingMarker === undefined) return;
    out.problems.push({
      file,
      line: pendingMarker.line,
      message: `docs-test marker "${pendingMarker.value}" is not directly before a \`\`\`ts block${LIST_MARKERS.has(pendingMarker.value) ? " or a text block" : ""}`,
    });
    pendingMarker = undefined;
  };
  while (i < lines.length) {
    const line = lines[i]!;
    const lineNo = i + 1;
    const fence = FENCE.exec(line);
    if (fence !== null) {
      endText();
      const indent = fence[1]!.length;
      const mark = fence[2]!;
      const lang = (fence[3] ?? "").toLowerCase();
      const code: string[] = [];
      let j = i + 1;
      const close = new RegExp(`^\\s*${mark[0] === "`" ? "`" : "~"}{${mark.length},}\\s*$`);
      while (j < lines.length && !close.test(lines[j]!)) {
        const l = lines[j]!;
        // Strip the fence's own indentation (a block inside a list item), never more.
        code.push(l.slice(Math.min(indent, l.length - l.trimStart().length)));
        j++;
      }
      if (j >= lines.length) out.problems.push({ file, line: lineNo, message: "code fence is never closed" });
      if (TS_LANGS.has(lang)) {
        const block: CodeBlock = { file, line: lineNo, code, mode: "check" };
        if (pendingMarker !== undefined) {
          const m = pendingMarker;
          pendingMarker = undefined;
          const skip = /^skip(?:\s*\((.*)\))?$/.exec(m.value);
          if (skip !== null) {
            const reason = (skip[1] ?? "").trim();
            if (reason === "") out.problems.push({ file, line: m.line, message: "docs-test: skip needs a reason: <!-- docs-test: skip (why this block cannot compile) -->" });
            else {
              block.mode = "skip";
              block.reason = reason;
            }
          } else if (m.value === "continues") {
            if (out.blocks.length === 0) out.problems.push({ file, line: m.line, message: "docs-test: continues, but no ```ts block comes before it in this file" });
            else block.mode = "continues";
          } else out.problems.push({ file, line: m.line, message: `unknown docs-test marker "${m.value}" (skip (reason) or continues)` });
        }
        out.blocks.push(block);
      } else staleMarker();
      i = j + 1;
      continue;
    }
    const marker = MARKER.exec(line);
    if (marker !== null) {
      endText();
      staleMarker();
      pendingMarker = { line: lineNo, value: marker[1]! };
      i++;
      continue;
    }
    if (line.trim() === "") {
      endText();
      i++;
      continue;
    }
    // Text: headings, links, blocks.
    const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading !== null) {
      endText();
      const base = slug(heading[2]!);
      const n = slugCounts.get(base) ?? 0;
      slugCounts.set(base, n + 1);
      out.anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    const plain = withoutCode(line);
    for (const a of plain.matchAll(/<[a-z][a-z0-9]*\s(?:[^>]*\s)?(?:id|name)="([^"]+)"/gi)) out.anchors.add(a[1]!);
    for (const a of plain.matchAll(/<(?:a|img)\s(?:[^>]*\s)?(?:href|src)="([^"]+)"/gi)) out.links.push({ file, line: lineNo, target: a[1]! });
    for (const m of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.links.push({ file, line: lineNo, target: m[1]! });
    const def = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)/.exec(plain);
    if (def !== null) out.links.push({ file, line: lineNo, target: def[1]! });
    // A list item starts a new text block, so a marker can describe one item.
    if (current !== undefined && /^\s*([-*+]|\d+\.)\s/.test(line)) endText();
    if (current === undefined) {
      const m = pendingMarker;
      pendingMarker = undefined;
      if (m !== undefined && !LIST_MARKERS.has(m.value)) {
        out.problems.push({ file, line: m.line, message: `docs-test marker "${m.value}" is not directly before a \`\`\`ts block` });
      }
      current = { file, line: lineNo, text: line, ...(m !== undefined && LIST_MARKERS.has(m.value) ? { marker: m.value } : {}) };
    } else current.text += "\n" + line;
    i++;
  }
  endText();
  staleMarker();
  return out;
}
