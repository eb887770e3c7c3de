/**
 * One error hierarchy for the whole service. Each error carries a stable code, and its HTTP
 * status comes from the code's entry in the catalogue below; exactly one place
 * (lib/http/respond.ts) turns errors into responses. Anything that is not an AppError becomes
 * a generic 500 with nothing internal.
 */

interface ErrorEntry {
  readonly status: number;
  /** What it means to a client: the API reference's error lists and docs/design/errors.md are generated from it. */
  readonly meaning: string;
  /** The RFC 6749 / RFC 6750 code an OAuth route answers instead (else the code in lower case). */
  readonly oauth?: string;
}

/** Every error code the service answers, once, with its status and meaning. */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, meaning: 'The request is malformed or a field is invalid; `details.issues` names each field and why', oauth: 'invalid_request' },
  UNAUTHENTICATED: { status: 401, meaning: 'No credential, or one that is unknown, expired or revoked', oauth: 'invalid_token' },
  INVALID_CREDENTIALS: { status: 401, meaning: 'The e-mail and password do not match an active user' },
  FORBIDDEN: { status: 403, meaning: 'The caller lacks the permission (or role, in `details.requiredRole`) the operation needs', oauth: 'access_denied' },
  INSUFFICIENT_SCOPE: { status: 403, meaning: "The OAuth token's scopes do not cover the route; `details` names the scopes needed" },
  PLAN_FEATURE_REQUIRED: { status: 403, meaning: "The organization's plan does not include the feature" },
  FEATURE_DISABLED: { status: 403, meaning: 'The feature is switched off for this board (`details.feature`)' },
  TIME_TRACKING_DISABLED: { status: 403, meaning: 'Time tracking is switched off for the organization' },
  PAT_READ_ONLY: { status: 403, meaning: 'The token is read-only and the request writes' },
  PAT_DENY_DELETE: { status: 403, meaning: 'The token may not delete' },
  AGENT_LIMIT_REACHED: { status: 403, meaning: 'The organization already has its maximum of live agents' },
  AGENT_APPROVAL_REQUIRED: { status: 403, meaning: "The board's approval gate holds an agent's move; a person decides the pending suggestion" },
  CLAIM_LIMIT_REACHED: { status: 403, meaning: 'The agent holds its maximum of concurrent claims; `details.heldTicketIds` names them' },
  BUDGET_EXHAUSTED: { status: 403, meaning: "The agent's or the board's budget for the month is spent" },
  WEEKLY_HOURS_CAP_REACHED: { status: 403, meaning: "The entry would take the agent's hours of the week past its cap" },
  NOT_FOUND: { status: 404, meaning: 'No such resource, or one the caller may not see' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The path exists but not with this method; `Allow` lists the methods' },
  CONFLICT: { status: 409, meaning: 'The change collides with another one or with a name already taken; retrying may succeed' },
  TICKET_ALREADY_CLAIMED: { status: 409, meaning: 'Someone else holds a live claim on the ticket' },
  TICKET_NOT_CLAIMABLE: { status: 409, meaning: 'The ticket is in a final status' },
  TICKET_QUARANTINED: { status: 409, meaning: 'The ticket left the ready queue after too many lapsed leases in a row; a person must return it' },
  DISPATCH_PAUSED: { status: 409, meaning: 'Dispatch is paused for the organization, the board or the agent (`details.scope`)' },
  CLAIM_NOT_HELD: { status: 409, meaning: 'The caller holds no live claim on the ticket' },
  CLAIM_SUPERSEDED: { status: 409, meaning: 'The claim count sent belongs to a lease that has ended; the ticket was claimed again since' },
  CLAIM_STOPPING: { status: 409, meaning: 'A stop was requested and the lease is ending' },
  MESSAGES_PENDING: { status: 409, meaning: "Too many messages already wait for the holder's next heartbeat" },
  DEPENDENCY_CYCLE: { status: 409, meaning: 'The dependency would close a cycle; `details.path` shows it' },
  ENTRY_BILLED: { status: 409, meaning: 'The time entry was billed by the time-booking system and is locked' },
  SYNC_NOT_CONFIGURED: { status: 409, meaning: 'No time-booking endpoint is configured' },
  STALE_UPDATE: { status: 409, meaning: 'The page changed since the version the edit is based on; `details.currentVersion` is the current one' },
  FOLDER_NOT_EMPTY: { status: 409, meaning: 'The folder still holds pages or folders' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, meaning: 'A request with the same Idempotency-Key is still running' },
  IDEMPOTENCY_KEY_COMMITTED: { status: 409, meaning: 'The keyed request took effect but its answer was lost; `details.created` names what it made' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is larger than the route accepts', oauth: 'invalid_request' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The body is not JSON (or the form the route takes)', oauth: 'invalid_request' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, meaning: 'The Idempotency-Key was used for another request' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests; `Retry-After` says when to try again' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'The request headers are too large' },
  INTERNAL_ERROR: { status: 500, meaning: 'Something failed inside the service; the request id finds it in the logs', oauth: 'server_error' },
  // The OAuth endpoints' own codes (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707), answered as `{error, error_description}`.
  invalid_request: { status: 400, meaning: 'The OAuth request is missing a parameter or malformed' },
  invalid_client: { status: 401, meaning: 'The client is unknown or failed to authenticate' },
  invalid_grant: { status: 400, meaning: 'The code or refresh token is invalid, expired, used, or was issued to another client' },
  invalid_scope: { status: 400, meaning: 'A requested scope is unknown' },
  invalid_target: { status: 400, meaning: 'The resource indicator is not this service' },
  unauthorized_client: { status: 400, meaning: 'The client may not use this grant type' },
  unsupported_grant_type: { status: 400, meaning: 'The grant type is not supported' },
  invalid_redirect_uri: { status: 400, meaning: 'A redirect URI is not allowed' },
  invalid_client_metadata: { status: 400, meaning: "The client's metadata is invalid" },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** Error codes of the OAuth endpoints (lower case by RFC 6749), answered by the routes that declare `errorFormat: 'oauth'`. */
export type OAuthErrorCode = Extract<ErrorCode, Lowercase<ErrorCode>>;

/** The code an OAuth route answers for `code` (lib/http/respond.ts, and the API reference's lists of OAuth routes). */
export const oauthCodeOf = (code: ErrorCode): string => {
  const entry: ErrorEntry = ERRORS[code];
  return entry.oauth ?? code.toLowerCase();
};

export interface ValidationIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  /** From the code's entry in ERRORS. */
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERRORS[code].status;
  }
}

export const validationError = (issues: ValidationIssue[]): AppError =>
  new AppError('VALIDATION_ERROR', describeIssues(issues), { issues });

/** A single-field validation failure raised by domain code (e.g. an unknown referenced id). */
export const invalidField = (path: string, message: string): AppError =>
  validationError([{ path, message }]);

export const unauthenticated = (message = 'Authentication required'): AppError =>
  new AppError('UNAUTHENTICATED', message, undefined, { 'WWW-Authenticate': 'Bearer' });

/** The codes the catalogue answers with `status`. */
export type CodeWithStatus<S extends number> = { [K in ErrorCode]: (typeof ERRORS)[K]['status'] extends S ? K : never }[ErrorCode];

export const forbidden = (message = 'You do not have permission to do this', code: CodeWithStatus<403> = 'FORBIDDEN', details?: Record<string, unknown>): AppError =>
  new AppError(code, message, details);

/** 404 NOT_FOUND: its own class, so code that moves on past a vanished resource tells it by type, never by its code. */
export class NotFound extends AppError {
  constructor(message: string) {
    super('NOT_FOUND', message);
    this.name = 'NotFound';
  }
}

/** 409 CONFLICT: a change that collided with another (a lost race, a name taken); its own class like NotFound. */
export class Conflict extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('CONFLICT', message, details);
    this.name = 'Conflict';
  }
}

export const notFound = (what = 'Resource'): AppError => new NotFound(`${what} not found`);

export const conflict = (message: string, details?: Record<string, unknown>): AppError => new Conflict(message, details);

function describeIssues(issues: ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return 'Invalid request';
  const where = first.path ? `${first.path}: ` : '';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return `${where}${first.message}${more}`;
}

/** An OAuth error (RFC 6749 §5.2): its status from the catalogue (`invalid_client` 401, the others 400). */
export const oauthError = (code: OAuthErrorCode, description: string): AppError => new AppError(code, description);
