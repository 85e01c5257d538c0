// The OpenAPI document of a loaded app. An app that mounts docs() serves its own document, built
// by its own copy of keel/openapi with the title and version it chose: that one is asked for, in
// process (inject: no port). An app bundled separately from this tool carries its own copy of
// keel, and only its copy knows the layer descriptions it registered, so its answer is the
// faithful one. Otherwise the document is built here from the app's route table.
import { openApiDocument, type OpenApiDocument } from "../openapi/index.js";
import type { LoadedApp } from "./load-app.js";

interface Injectable {
  inject(options: { method: string; url: string }): Promise<{ status: number; body: string }>;
}

function canInject(app: LoadedApp): app is LoadedApp & Injectable {
  return typeof (app as Partial<Injectable>).inject === "function";
}

export async function appDocument(app: LoadedApp): Promise<OpenApiDocument> {
  const served = app.routeTable().find((def) => def.method === "GET" && def.path.endsWith("/openapi.json"));
  if (served !== undefined && canInject(app)) {
    const answer = await app.inject({ method: "GET", url: served.path });
    if (answer.status === 200) return JSON.parse(answer.body) as OpenApiDocument;
  }
  return openApiDocument(app);
}
