// keel/versions: API versions chosen by path prefix, header, query or Accept parameter;
// deprecation headers; the OpenAPI document of one version.
export { version, type VersionGroup, type VersionOptions } from "./version.js";
export { versions, ApiVersions, type VersionsOptions, type VersionStrategy } from "./versions.js";
export { versionDocument, versionRoutes } from "./document.js";
export type { Deprecation, DeprecationHeaders } from "./deprecation.js";
