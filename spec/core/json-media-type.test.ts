// The one "is JSON" media-type test (keel/plugin isJsonMediaType, lib/util/json-media-type.ts):
// application/json and application/*+json, case-insensitive, parameters allowed. The json()
// extractor, response contracts, TOON negotiation, compression, replay and the OTLP exporter
// all ask it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { App, json, route, silentLogger } from "../../lib/index.js";
import { isJsonMediaType } from "../../lib/plugin.js";

describe("isJsonMediaType", () => {
  it("accepts application/json and application/*+json, any case, with parameters and whitespace", () => {
    for (const t of [
      "application/json",
      "Application/JSON",
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      " application/json ;q=1",
      "\tapplication/json\t",
      "application/problem+json",
      "APPLICATION/Problem+JSON; charset=utf-8",
      "application/vnd.api+json;ext=x",
      "application/graphql-response+json",
      "application/a+json",
    ]) {
      assert.equal(isJsonMediaType(t), true, t);
    }
  });

  it("refuses everything else", () => {
    for (const t of [
      undefined,
      "",
      "json",
      "application/",
      "application/jso",
      "application/jsonx",
      "application/json-seq",
      "application/json5",
      "application/+json",
      "application/x y+json",
      "application/x\u00e9+json",
      "application/xjson",
      "text/json",
      "text/x+json",
      "image/svg+json",
      "applicationx/json",
      "application /json",
      "application/json+xml",
      "multipart/form-data; boundary=application/json",
    ]) {
      assert.equal(isJsonMediaType(t), false, String(t));
    }
  });

  it("decides what json() accepts as a request body (415 otherwise)", async () => {
    const app = new App({ logger: silentLogger }).route(route.post("/echo", [json()], (body) => body));
    const send = (type: string) => app.inject({ method: "POST", url: "/echo", headers: { "content-type": type }, body: "{\"a\":1}" });
    assert.equal((await send("application/merge-patch+json")).status, 200);
    assert.equal((await send("Application/JSON; charset=utf-8")).status, 200);
    assert.equal((await send("application/json-seq")).status, 415);
    assert.equal((await send("text/x+json")).status, 415);
  });
});
