// Types of the OpenAPI 3.1 / 3.2 document keel generates, and the options that shape it.
import type { JsonSchema, Layer } from "../index.js";

export interface OpenApiServer {
  url: string;
  description?: string;
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export type OpenApiParameterLocation = "path" | "query" | "header" | "cookie";

export interface OpenApiParameter {
  name: string;
  in: OpenApiParameterLocation;
  required: boolean;
  description?: string;
  deprecated?: boolean;
  schema: JsonSchema;
  /** Set on the parameter of a tail wildcard (`{*rest}`): its value may contain "/". */
  "x-wildcard"?: true;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
}

export interface OpenApiRequestBody {
  required: boolean;
  content: Record<string, OpenApiMediaType>;
}

export interface OpenApiHeader {
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Readonly<Record<string, OpenApiHeader>>;
  content?: Record<string, OpenApiMediaType>;
}

export type OpenApiSecurityRequirement = Record<string, string[]>;

export interface OpenApiOperation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse>;
  security?: OpenApiSecurityRequirement[];
}

/** The HTTP methods a Path Item has a field for (lowercase, as the keys are written); `query` from 3.2 on. */
export type OpenApiMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace" | "query";

/** The versions of the OpenAPI Specification keel writes. */
export type OpenApiVersion = "3.1.0" | "3.2.0";

export type OpenApiPathItem = Partial<Record<OpenApiMethod, OpenApiOperation>> & {
  /** 3.2: operations of any other method, keyed by the method as sent (`PURGE`). */
  additionalOperations?: Record<string, OpenApiOperation>;
};

export interface OpenApiTag {
  name: string;
  description?: string;
}

/** A Security Scheme Object, passed through as given (`{ type: "http", scheme: "bearer" }`). */
export type OpenApiSecurityScheme = Readonly<Record<string, unknown>>;

export interface OpenApiComponents {
  schemas: Record<string, JsonSchema>;
  securitySchemes?: Record<string, OpenApiSecurityScheme>;
}

export interface OpenApiDocument {
  openapi: string;
  info: OpenApiInfo;
  servers?: OpenApiServer[];
  paths: Record<string, OpenApiPathItem>;
  components: OpenApiComponents;
  tags?: OpenApiTag[];
}

export interface OpenApiOptions {
  /**
   * The document's OpenAPI version (default "3.1.0"). "3.2.0" documents QUERY routes (`query`)
   * and routes of any other method (`additionalOperations`); a 3.1 document cannot hold them, so
   * building one with such a visible route throws, naming it.
   */
  openapi?: OpenApiVersion;
  /** info.title (default "keel API"). */
  title?: string;
  /** info.version (default "0.1.0"). */
  version?: string;
  /** info.description. */
  description?: string;
  /** Default `[{ url: "/" }]`: the document's own origin. */
  servers?: readonly OpenApiServer[];
  /**
   * components.securitySchemes. Auth extractors and layers register the schemes they name
   * (`bearerAuth`, `apiKeyAuth`); an entry here adds one or replaces theirs.
   */
  securitySchemes?: Readonly<Record<string, OpenApiSecurityScheme>>;
  /** Descriptions for the top-level tag list, by tag name. */
  tagDescriptions?: Readonly<Record<string, string>>;
  /** Extra named schemas for `t.ref("Name")` references to schemas no route mentions directly. */
  schemas?: Readonly<Record<string, JsonSchema>>;
  /** The app's global layers: what they answer and read is added to every operation (docs() passes them). */
  layers?: readonly Layer[];
  /** The router's longest path parameter (default 100; docs() passes the app's). */
  maxParamLength?: number;
  /**
   * Another library's schema (Standard Schema) is documented from its Standard JSON Schema. One
   * that offers none makes the document fail, naming the route and the schema; true documents
   * it as an unconstrained schema instead.
   */
  unconstrainedSchemas?: boolean;
}

export interface DocsOptions extends OpenApiOptions {
  /** Where the UI is served (default "/docs"); the document is at `{path}/openapi.json`. */
  path?: string;
}
