// Which precompressed sibling (`file.br`, `file.gz`) a request accepts, from Accept-Encoding
// (RFC 9110 §12.5.3): the highest q-value wins, br before gzip when they tie, `q=0` means "not
// this one", `*` stands for any coding not named, `x-gzip` is gzip. An absent header accepts
// only the identity (no guessing: old clients and proxies omit it).

export type PrecompressedEncoding = "br" | "gzip";

/** Encodings a request accepts, best first (ties: br first). Empty: send the file as it is. */
export function acceptedEncodings(header: string | undefined): PrecompressedEncoding[] {
  if (header === undefined || header === "") return [];
  let br = -1;
  let gzip = -1;
  let star = -1;
  for (const part of header.split(",")) {
    const semi = part.indexOf(";");
    const coding = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    const q = semi === -1 ? 1 : qValue(part.slice(semi + 1));
    if (q < 0) continue;
    if (coding === "br") br = q;
    else if (coding === "gzip" || coding === "x-gzip") gzip = Math.max(gzip, q);
    else if (coding === "*") star = q;
  }
  if (br === -1) br = star;
  if (gzip === -1) gzip = star;
  const out: PrecompressedEncoding[] = [];
  if (br > 0 && br >= gzip) out.push("br");
  if (gzip > 0) out.push("gzip");
  if (br > 0 && br < gzip) out.push("br");
  return out;
}

/** `q=0.8` among the parameters -> 0.8; no q -> 1; a malformed weight -> -1 (ignore the entry). */
function qValue(params: string): number {
  for (const p of params.split(";")) {
    const eq = p.indexOf("=");
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== "q") continue;
    const v = p.slice(eq + 1).trim();
    // weight = "0" [ "." 0*3DIGIT ] / "1" [ "." 0*3("0") ]
    if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(v)) return -1;
    return Number(v);
  }
  return 1;
}
