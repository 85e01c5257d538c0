// Public surface of the OpenAPI module: the document builder, the docs routes, the integrity check.
export { buildOpenApiDocument, OPENAPI_VERSION, DEFAULT_API_TITLE, DEFAULT_API_VERSION } from "./document.js";
export { docsRoutes, DEFAULT_DOCS_PATH } from "./docs-routes.js";
export { docs, openApiDocument } from "./docs.js";
export { checkRefIntegrity, findDanglingRefs } from "./ref-integrity.js";
export { inferPathParamSchema, paramOverrideSchema } from "./path-params.js";
export { deriveOperationId } from "./operation-id.js";
export { OPENAPI_VERSIONS } from "./method-fields.js";
export { DOCS_CSP, DOCS_PAGE_HEADERS, renderDocsPage } from "./docs-page.js";
export type {
  DocsOptions,
  OpenApiComponents,
  OpenApiDocument,
  OpenApiInfo,
  OpenApiMediaType,
  OpenApiMethod,
  OpenApiOperation,
  OpenApiOptions,
  OpenApiParameter,
  OpenApiParameterLocation,
  OpenApiPathItem,
  OpenApiRequestBody,
  OpenApiResponse,
  OpenApiSecurityRequirement,
  OpenApiSecurityScheme,
  OpenApiServer,
  OpenApiTag,
  OpenApiVersion,
} from "./types.js";
