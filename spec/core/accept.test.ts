// The one Accept / Accept-Encoding parser (keel/plugin, lib/util/accept.ts), against RFC 9110:
// §12.4.2 quality values, §12.5.1 Accept (the most specific range decides), §12.5.3
// Accept-Encoding (identity and `*`). compression(), serveStatic(), negotiation() and metrics()
// all decide through it; spec/web/encoding-agreement.test.ts checks two of them agree.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { acceptQuality, acceptsIdentity, MAX_ACCEPT_ELEMENTS, parseAccept, parseQValue, selectEncoding, selectMediaType } from "../../lib/plugin.js";

const CODINGS = ["br", "gzip", "deflate"] as const;

describe("parseQValue: qvalue = \"0\" [ \".\" 0*3DIGIT ] / \"1\" [ \".\" 0*3(\"0\") ], in thousandths", () => {
  it("reads every form the grammar allows", () => {
    const ok: Array<[string, number]> = [
      ["0", 0], ["0.", 0], ["0.0", 0], ["0.000", 0], ["0.5", 500], ["0.05", 50], ["0.001", 1], ["0.999", 999],
      ["1", 1000], ["1.", 1000], ["1.0", 1000], ["1.000", 1000],
    ];
    for (const [text, want] of ok) assert.equal(parseQValue(text), want, text);
  });

  it("refuses everything else with -1", () => {
    for (const text of ["", "1e-1", ".5", "2", "0.0001", "1.001", "1.5", "-0", "+1", "0x1", " 0.5", "0.5 ", "0,5", "00.5", "01", "\"1\"", "Infinity", "NaN", "1.0000"]) {
      assert.equal(parseQValue(text), -1, JSON.stringify(text));
    }
  });

  it("reads a slice in place", () => {
    assert.equal(parseQValue("gzip;q=0.25", 7, 11), 250);
  });
});

describe("selectEncoding (Accept-Encoding, §12.5.3)", () => {
  it("picks the highest q, ties in the server's order", () => {
    assert.equal(selectEncoding("gzip, deflate, br", CODINGS), "br");
    assert.equal(selectEncoding("gzip, deflate, br", ["gzip", "br"]), "gzip");
    assert.equal(selectEncoding("br;q=0.5, gzip;q=0.8", CODINGS), "gzip");
    assert.equal(selectEncoding("deflate", CODINGS), "deflate");
    assert.equal(selectEncoding("gzip;q=0.001", CODINGS), "gzip");
  });

  it("treats codings, q and x-gzip case-insensitively", () => {
    assert.equal(selectEncoding("GZIP", CODINGS), "gzip");
    assert.equal(selectEncoding("Br;Q=0.5, GZip;q=0.9", CODINGS), "gzip");
    assert.equal(selectEncoding("x-gzip", CODINGS), "gzip");
    assert.equal(selectEncoding("X-GZIP;q=0.7, br;q=0.6", CODINGS), "gzip");
  });

  it("q=0 means not acceptable", () => {
    assert.equal(selectEncoding("gzip;q=0", CODINGS), null);
    assert.equal(selectEncoding("br;q=0, gzip", CODINGS), "gzip");
    assert.equal(selectEncoding("br;q=0.000, gzip;q=0.0", CODINGS), null);
  });

  it("ignores an element whose q is not a qvalue, as if it were not sent", () => {
    for (const h of ["gzip;q=1e-1", "gzip;q=.5", "gzip;q=2", "gzip;q=0.0001", "gzip;q=", "gzip;q=abc", 'gzip;q="1"', "gzip;q=1.5"]) {
      assert.equal(selectEncoding(h, CODINGS), null, h);
    }
    assert.equal(selectEncoding("br;q=1e-1, gzip;q=0.1", CODINGS), "gzip");
    // The invalid element does not count as naming the coding: `*` covers it.
    assert.equal(selectEncoding("br;q=2, *;q=0.5", ["br"]), "br");
    assert.equal(selectEncoding("gzip;q=1e-1, *;q=0", ["gzip"]), null);
  });

  it("ignores elements that do not parse, and reads the rest", () => {
    assert.equal(selectEncoding("gzip/x, br", CODINGS), "br");
    assert.equal(selectEncoding("gz ip, deflate", CODINGS), "deflate");
    assert.equal(selectEncoding('gzip;x="a,b;q=0", br;q=0.1', CODINGS), "gzip", "commas and q inside quotes do not split");
    assert.equal(selectEncoding("gzip;level=9;q=0.2, br;q=0.1", CODINGS), "gzip", "other parameters are tolerated");
    assert.equal(selectEncoding(" , ,gzip,, ", CODINGS), "gzip");
  });

  it("lets a named coding beat `*`, and the first of duplicates decide", () => {
    assert.equal(selectEncoding("*;q=0.1, gzip;q=0.9", CODINGS), "gzip");
    assert.equal(selectEncoding("*", CODINGS), "br");
    assert.equal(selectEncoding("*;q=0, gzip", CODINGS), "gzip");
    assert.equal(selectEncoding("gzip;q=0, *", ["gzip"]), null);
    assert.equal(selectEncoding("gzip;q=0.2, gzip;q=0.9, deflate;q=0.5", CODINGS), "deflate");
    assert.equal(selectEncoding("gzip;q=0.9, x-gzip;q=0, deflate;q=0.5", CODINGS), "gzip");
  });

  it("chooses identity (null) for no header, an empty one, or one with nothing valid or acceptable", () => {
    for (const h of [undefined, "", "identity", "compress", "zstd, compress;q=0.5", "gzip;q=2", " , "]) {
      assert.equal(selectEncoding(h, CODINGS), null, String(h));
    }
    assert.equal(selectEncoding("gzip", []), null);
  });

  it("lets a named identity with a higher q keep the body as it is; an unnamed one ranks last", () => {
    assert.equal(selectEncoding("gzip;q=0.5, identity", CODINGS), null);
    assert.equal(selectEncoding("identity;q=0.4, gzip;q=0.5", CODINGS), "gzip");
    assert.equal(selectEncoding("gzip, identity", CODINGS), "gzip", "a tie goes to the coding");
    assert.equal(selectEncoding("gzip;q=0.1", CODINGS), "gzip");
    assert.equal(selectEncoding("*;q=1, gzip;q=0.5", ["gzip"]), "gzip", "`*` does not give identity a weight");
  });

  it("stops after MAX_ACCEPT_ELEMENTS elements", () => {
    const many = Array.from({ length: MAX_ACCEPT_ELEMENTS }, (_, i) => "x" + i).join(", ");
    assert.equal(selectEncoding(many + ", gzip", CODINGS), null);
    const fewer = Array.from({ length: MAX_ACCEPT_ELEMENTS - 1 }, (_, i) => "x" + i).join(", ");
    assert.equal(selectEncoding(fewer + ", gzip", CODINGS), "gzip");
  });
});

describe("acceptsIdentity (§12.5.3)", () => {
  it("is true unless identity;q=0, or *;q=0 without an identity element", () => {
    for (const h of [undefined, "", "gzip", "gzip;q=0", "*", "*;q=0.1", "identity", "identity;q=0.001", "*;q=0, identity", "*;q=0, identity;q=0.5", "identity;q=2, gzip", "identity;q=1e-1"]) {
      assert.equal(acceptsIdentity(h), true, String(h));
    }
    for (const h of ["identity;q=0", "IDENTITY;Q=0.000", "*;q=0", "gzip, *;q=0", "*;q=0, identity;q=0", "identity;q=0, *;q=1"]) {
      assert.equal(acceptsIdentity(h), false, h);
    }
  });
});

describe("Accept (§12.5.1)", () => {
  it("the most specific range decides: type/subtype with params > type/subtype > type/* > */*", () => {
    const h = "*/*;q=0.1, application/*;q=0.2, application/json;q=0.3, application/json;v=1;q=0.4";
    assert.equal(acceptQuality(h, "application/json"), 0.4);
    assert.equal(acceptQuality("*/*;q=0.1, application/*;q=0.2, application/json;q=0.3", "application/json"), 0.3);
    assert.equal(acceptQuality("*/*;q=0.1, application/*;q=0.2", "application/json"), 0.2);
    assert.equal(acceptQuality("*/*;q=0.1", "application/json"), 0.1);
    // Order does not matter, specificity does.
    assert.equal(acceptQuality("application/json;q=0.3, application/*;q=0.9, */*", "application/json"), 0.3);
    assert.equal(acceptQuality("application/json;q=0, */*", "application/json"), 0);
  });

  it("types, subtypes and parameter names are case-insensitive", () => {
    assert.equal(acceptQuality("Application/JSON;Q=0.5", "application/json"), 0.5);
    assert.equal(acceptQuality("TEXT/*;q=0.25", "text/html"), 0.25);
  });

  it("ignores a range whose q is not a qvalue, and treats a header with no valid range as */*", () => {
    for (const bad of ["1e-1", ".5", "2", "0.0001"]) {
      assert.equal(acceptQuality(`application/json;q=${bad}, */*;q=0.2`, "application/json"), 0.2, bad);
      assert.equal(acceptQuality(`application/json;q=${bad}`, "application/json"), 1, `${bad} alone`);
      assert.deepEqual(parseAccept(`a/b;q=${bad}`), []);
    }
  });

  it("selects by q, then specificity, then the server's order; undefined when nothing is acceptable", () => {
    assert.equal(selectMediaType("text/html;q=0.9, application/json", ["text/html", "application/json"]), "application/json");
    assert.equal(selectMediaType("*/*, text/html", ["application/json", "text/html"]), "text/html");
    assert.equal(selectMediaType("image/png", ["application/json"]), undefined);
    assert.equal(selectMediaType("*/*;q=0", ["application/json"]), undefined);
  });

  it("parses ranges in order with their parameters", () => {
    const [r] = parseAccept('Text/HTML;Level=1;Charset="UTF-8";q=0.5;ext=1');
    assert.equal(r!.type, "text");
    assert.equal(r!.subtype, "html");
    assert.equal(r!.q, 0.5);
    assert.equal(r!.specificity, 3);
    assert.deepEqual({ ...r!.parameters }, { level: "1", charset: "UTF-8" });
  });
});
