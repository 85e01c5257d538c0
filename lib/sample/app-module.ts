// The sample as an app module for the keel CLI (`keel routes --app dist/sample-app.js`, also
// `openapi` and `client`): createApp() with a silent logger. Creating the app starts nothing.
import { silentLogger } from "../index.js";
import { createSampleApp } from "./app.js";

export function createApp() {
  return createSampleApp({ logger: silentLogger });
}
