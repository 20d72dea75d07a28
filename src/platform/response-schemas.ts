/**
 * What routes answer. Every route declares its success responses (`responses` in its RouteDef) with
 * zod schemas built once at module load and shared with the presenter that builds the body: a
 * presenter's return type is `z.infer` of its schema, so the two cannot drift. The OpenAPI document
 * (platform/openapi.ts) is generated from them, and in the test suites every response is checked
 * against them (platform/response-check.ts): an undeclared field, a missing one or a wrong type fails
 * the test that caused it.
 *
 * Conventions: objects are strict (`obj`), so a field the schema does not declare is an error; a
 * field GitLab sends as null is `.nullable()`, one it sometimes leaves out is `.optional()`; named
 * entities carry GitLab's entity name (`.meta({ id: 'UserBasic' })`) and become OpenAPI components.
 */
import { z } from 'zod';

/** An object whose every key is declared. */
export const obj = <S extends z.ZodRawShape>(shape: S) => z.strictObject(shape);

/** Timestamps as the presenters render them (platform/time.ts `iso`): ISO 8601 with milliseconds and `Z`. */
export const timestamp = z.iso.datetime({ precision: 3 });
/** `YYYY-MM-DD`. */
export const date = z.iso.date();
export const int = z.number().int();
export const id = z.number().int().positive();

/** A body that is not JSON: a raw file, a text diff, an HTML page, a redirect. */
export interface RawBody {
  readonly raw: true;
  /** The Content-Type the response must start with. */
  readonly contentType: string;
  readonly description?: string;
}
export const raw = (contentType: string, description?: string): RawBody => ({ raw: true, contentType, description });
export const isRaw = (spec: unknown): spec is RawBody => typeof spec === 'object' && spec !== null && (spec as RawBody).raw === true;

/** A status's body: a zod schema (JSON), a non-JSON body, or `null` for none (204, 202 without body). */
export type ResponseSpec = z.ZodType | RawBody | null;
/** Success responses of a route, by status. Error statuses are GitLab's error bodies for every route. */
export type Responses = Partial<Record<number, ResponseSpec>>;

/** `{"message": ...}` from GitLab's helpers: a string, a list (`["Prohibited"]`) or validation errors by attribute. */
export const MessageError = obj({
  message: z.union([z.string(), z.array(z.string()), z.record(z.string(), z.unknown())]),
}).meta({ id: 'MessageError', description: "GitLab's helpers (`render_api_error!`, `not_found!`, validation errors by attribute)" });

/** `{"error": "..."}` from Grape: parameter validation, the catch-all 404 and 405. */
export const ParameterError = obj({ error: z.string() }).meta({ id: 'ParameterError', description: 'Grape: invalid or missing parameters, unknown route, method not allowed' });

/** The OAuth shape of lib/api/api_guard.rb (invalid, expired or revoked tokens; insufficient scope). */
export const OAuthError = obj({
  error: z.string(),
  error_description: z.string(),
  scope: z.string().optional(),
}).meta({ id: 'OAuthError', description: 'rack-oauth2: `invalid_token`, `insufficient_scope`, OAuth grant errors' });

/** Any error body this server sends. */
export const ErrorBody = z.union([MessageError, ParameterError, OAuthError]);
