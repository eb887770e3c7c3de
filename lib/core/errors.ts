/**
 * One error hierarchy for the whole service. Each error carries a stable code and an
 * HTTP status; exactly one place (lib/http/respond.ts) turns errors into responses.
 * Anything that is not an AppError becomes a generic 500 with nothing internal.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHENTICATED'
  | 'INVALID_CREDENTIALS'
  | 'FORBIDDEN'
  | 'PLAN_FEATURE_REQUIRED'
  | 'FEATURE_DISABLED'
  | 'PAT_READ_ONLY'
  | 'PAT_DENY_DELETE'
  | 'AGENT_LIMIT_REACHED'
  | 'TICKET_ALREADY_CLAIMED'
  | 'TICKET_NOT_CLAIMABLE'
  | 'CLAIM_NOT_HELD'
  | 'CLAIM_SUPERSEDED'
  | 'CLAIM_LIMIT_REACHED'
  | 'CLAIM_STOPPING'
  | 'MESSAGES_PENDING'
  | 'DISPATCH_PAUSED'
  | 'TICKET_QUARANTINED'
  | 'BUDGET_EXHAUSTED'
  | 'DEPENDENCY_CYCLE'
  | 'AGENT_APPROVAL_REQUIRED'
  | 'TIME_TRACKING_DISABLED'
  | 'WEEKLY_HOURS_CAP_REACHED'
  | 'ENTRY_BILLED'
  | 'SYNC_NOT_CONFIGURED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'STALE_UPDATE'
  | 'FOLDER_NOT_EMPTY'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'HEADERS_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'IDEMPOTENCY_KEY_COMMITTED'
  | 'INSUFFICIENT_SCOPE'
  | 'INTERNAL_ERROR'
  | OAuthErrorCode;

/**
 * Error codes of the OAuth endpoints, answered as RFC 6749 §5.2 / RFC 7591 §3.2.2 JSON
 * (`{error, error_description}`) by the routes that declare `errorFormat: 'oauth'`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_token';

export interface ValidationIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validationError = (issues: ValidationIssue[]): AppError =>
  new AppError(400, 'VALIDATION_ERROR', describeIssues(issues), { issues });

/** A single-field validation failure raised by domain code (e.g. an unknown referenced id). */
export const invalidField = (path: string, message: string): AppError =>
  validationError([{ path, message }]);

export const unauthenticated = (message = 'Authentication required'): AppError =>
  new AppError(401, 'UNAUTHENTICATED', message, undefined, { 'WWW-Authenticate': 'Bearer' });

export const forbidden = (message = 'You do not have permission to do this', code: ErrorCode = 'FORBIDDEN', details?: Record<string, unknown>): AppError =>
  new AppError(403, code, message, details);

export const notFound = (what = 'Resource'): AppError => new AppError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError(409, 'CONFLICT', message, details);

function describeIssues(issues: ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return 'Invalid request';
  const where = first.path ? `${first.path}: ` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${where}${first.message}${more}`;
}

/** An OAuth error (RFC 6749 §5.2): 400 unless told (`invalid_client` is 401). */
export const oauthError = (code: OAuthErrorCode, description: string, status = code === 'invalid_client' ? 401 : 400): AppError =>
  new AppError(status, code, description);
