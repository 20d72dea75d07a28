/**
 * One way to fail. Handlers throw these; `onError` (middleware/errors.ts) turns them into
 * GitLab's bodies. GitLab has three shapes and we reproduce each where GitLab uses it:
 *  - `{"message": ...}` from its helpers (lib/api/helpers.rb),
 *  - `{"error": "..."}` from Grape (parameter validation, catch-all 404, `error!` calls),
 *  - the OAuth shape `{"error":"insufficient_scope",...}` (lib/api/api_guard.rb).
 */
export type ErrorBody = Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** JSON body; a string is sent as text/plain (Rack::Attack's throttled response). */
    readonly body: ErrorBody | string | null,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : typeof body?.error === 'string' ? body.error : `HTTP ${status}`);
  }
}

const withReason = (base: string, reason?: string) => (reason ? `${base} - ${reason}` : base);

export const unauthorized = (reason?: string) => new ApiError(401, { message: withReason('401 Unauthorized', reason) });
export const forbidden = (reason?: string) => new ApiError(403, { message: withReason('403 Forbidden', reason) });
export const badRequest = (reason?: string) => new ApiError(400, { message: withReason('400 Bad request', reason) });
export const missingAttribute = (attr: string) => badRequest(`"${attr}" not given`);
/** `not_found!('Project')` → `404 Project Not Found`; no argument → `404 Not Found`. */
export const notFound = (resource?: string) => new ApiError(404, { message: resource ? `404 ${resource} Not Found` : '404 Not Found' });
/** ActiveRecord::RecordNotFound escaping an endpoint: note the lower-case "found" (lib/api/api.rb). */
export const recordNotFound = () => new ApiError(404, { message: '404 Not found' });
export const conflict = (message = '409 Conflict') => new ApiError(409, { message });
export const notModified = () => new ApiError(304, null);
export const unprocessable = (message = '422 Unprocessable Entity') => new ApiError(422, { message });
export const preconditionFailed = () => new ApiError(412, { message: '412 Precondition Failed' });
export const tooLarge = () => new ApiError(413, { message: '413 Request Entity Too Large' });
/** Model validation failure (`render_validation_error!`): `{"message": {"attr": ["msg"]}}`. */
export const validationFailed = (messages: Record<string, unknown>) => new ApiError(400, { message: messages });
/** Grape parameter errors use the `error` key. */
export const grapeError = (error: string, status = 400) => new ApiError(status, { error });
export const methodNotAllowed = () => grapeError('405 Not Allowed', 405);

export const RATE_LIMITED_MESSAGE = 'This endpoint has been requested too many times. Try again later.';
/** Application rate limiter (`check_rate_limit!`, lib/api/helpers/rate_limiter.rb). */
export const rateLimited = (retryAfterSeconds?: number) =>
  new ApiError(429, { message: { error: RATE_LIMITED_MESSAGE } }, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});

/** rack-oauth2 style token errors (lib/api/api_guard.rb `install_error_responders`). */
export const invalidToken = (description: string) =>
  new ApiError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'WWW-Authenticate': `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${description}"` },
  );
export const TOKEN_EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.';
export const TOKEN_REVOKED = 'Token was revoked. You have to re-authorize from the user.';
export const TOKEN_IMPERSONATION_DISABLED = 'Token is an impersonation token but impersonation was disabled.';

export const insufficientScope = (scopes: string[]) =>
  new ApiError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: scopes.join(' '),
  });
