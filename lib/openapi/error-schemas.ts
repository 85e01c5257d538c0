// The uniform error body as shared components, and the responses routes get for the statuses
// their extractors can answer with (400, 401, 413, 415, 422...).
import { STATUS_CODES } from "node:http";
import type { JsonSchema } from "../index.js";
import type { OpenApiResponse } from "./types.js";

export const ERROR_BODY = "ErrorBody";
export const VALIDATION_ERROR_BODY = "ValidationErrorBody";
export const ERROR_FIELD = "ErrorField";

const ERROR_ID: JsonSchema = {
  type: "string",
  pattern: "^err_[0-9a-f]{32}$",
  description: "Identifies this error in the server's logs.",
  examples: ["err_0f1e2d3c4b5a69788796a5b4c3d2e1f0"],
};

/** The components every document carries: ErrorField, ErrorBody, ValidationErrorBody. */
export function errorComponents(): Record<string, JsonSchema> {
  return {
    [ERROR_FIELD]: {
      type: "object",
      description: "One failed validation rule.",
      required: ["field", "code", "message"],
      properties: {
        field: { type: "string", description: "Path of the offending value (email, items[0].name); empty for the root." },
        code: { type: "string", description: "Rule that failed: length, email, range, required, type..." },
        message: { type: "string" },
      },
    },
    [ERROR_BODY]: {
      type: "object",
      description: "The uniform error body of every failed request.",
      required: ["error", "error_id"],
      properties: {
        error: {
          type: "object",
          required: ["type", "message"],
          properties: {
            type: { type: "string", examples: ["bad_request", "not_found"] },
            message: { type: "string" },
            fields: { type: "array", items: { $ref: `#/components/schemas/${ERROR_FIELD}` } },
          },
        },
        error_id: ERROR_ID,
      },
    },
    [VALIDATION_ERROR_BODY]: {
      type: "object",
      description: "The error body of a request that failed validation (422), one item per failed rule.",
      required: ["error", "error_id"],
      properties: {
        error: {
          type: "object",
          required: ["type", "message", "fields"],
          properties: {
            type: { type: "string", const: "validation_error" },
            message: { type: "string" },
            fields: { type: "array", items: { $ref: `#/components/schemas/${ERROR_FIELD}` } },
          },
        },
        error_id: ERROR_ID,
      },
    },
  };
}

/** Standard reason phrase for a status, or a generic description. */
export function statusDescription(status: string): string {
  return STATUS_CODES[status] ?? (status.startsWith("2") ? "Success" : "Response");
}

/** The response an error status gets: the uniform body (422: its validation variant). */
export function errorResponse(status: number): OpenApiResponse {
  const name = status === 422 ? VALIDATION_ERROR_BODY : ERROR_BODY;
  return {
    description: statusDescription(String(status)),
    content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } },
  };
}
