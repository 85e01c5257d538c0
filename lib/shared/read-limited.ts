// Reading an outgoing fetch() response body with a byte cap, counted on bytes actually read
// (a lying or absent Content-Length cannot make us buffer more). Used for JWKS and OAuth2.

/**
 * The body as UTF-8 text, at most `maxBytes`; calls `tooLarge(detail)` (which must throw) when
 * the declared length or the bytes read exceed it.
 */
export async function readLimitedText(response: Response, maxBytes: number, tooLarge: (detail: string) => never): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) tooLarge(`content-length ${declared}`);
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      tooLarge(`more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
