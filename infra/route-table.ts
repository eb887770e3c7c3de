/**
 * The one route table. Every Lambda of the service is listed here with its entry file,
 * its trigger (HTTP routes in API Gateway syntax, the table stream, a queue or the
 * schedule) and the data access it needs. The CDK stack builds functions, routes and
 * least-privilege grants from it; the local runtime builds its HTTP server, stream
 * poller, queue poller and schedule from it. Local and cloud cannot drift.
 */
export type TableAccess = 'none' | 'read' | 'readWrite';

export interface HttpGroup {
  name: string;
  entry: string;
  kind: 'http';
  routes: string[];
  table: TableAccess;
  /** Sends messages to the webhook queue. */
  sendsToWebhookQueue?: boolean;
  /** Needs the platform operator token hash in its environment. */
  platform?: boolean;
}

export interface StreamConsumer {
  name: string;
  entry: string;
  kind: 'stream';
  table: TableAccess;
  sendsToWebhookQueue?: boolean;
}

export interface ScheduledFunction {
  name: string;
  entry: string;
  kind: 'schedule';
  /** Minutes between runs (EventBridge rate expression). */
  everyMinutes: number;
  table: TableAccess;
}

export type FunctionDefinition = HttpGroup | StreamConsumer | ScheduledFunction;

const api = (routes: string[]) => routes;

export const functionGroups: FunctionDefinition[] = [
  {
    name: 'health',
    entry: 'functions/health.ts',
    kind: 'http',
    table: 'read',
    routes: api(['GET /healthz']),
  },
  {
    name: 'auth',
    entry: 'functions/auth.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'POST /api/v1/auth/signup',
      'POST /api/v1/auth/login',
      'POST /api/v1/auth/logout',
      'POST /api/v1/auth/password',
    ]),
  },
  {
    name: 'users',
    entry: 'functions/users.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/users/me',
      'GET /api/v1/users',
      'POST /api/v1/users',
      'GET /api/v1/users/{userId}',
      'PATCH /api/v1/users/{userId}',
      'GET /api/v1/users/me/tokens',
      'POST /api/v1/users/me/tokens',
      'DELETE /api/v1/users/me/tokens/{tokenId}',
    ]),
  },
  {
    name: 'organization',
    entry: 'functions/organization.ts',
    kind: 'http',
    table: 'readWrite',
    platform: true,
    routes: api([
      'GET /api/v1/organization',
      'PATCH /api/v1/organization',
      'GET /api/v1/permission-groups',
      'POST /api/v1/permission-groups',
      'GET /api/v1/permission-groups/{groupId}',
      'PATCH /api/v1/permission-groups/{groupId}',
      'DELETE /api/v1/permission-groups/{groupId}',
      'PATCH /api/v1/platform/organizations/{slug}',
    ]),
  },
  {
    name: 'boards',
    entry: 'functions/boards.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/boards',
      'POST /api/v1/boards',
      'GET /api/v1/boards/{boardId}',
      'PATCH /api/v1/boards/{boardId}',
      'DELETE /api/v1/boards/{boardId}',
      'POST /api/v1/boards/{boardId}/archive',
      'POST /api/v1/boards/{boardId}/unarchive',
      'POST /api/v1/boards/{boardId}/teams',
      'DELETE /api/v1/boards/{boardId}/teams/{teamId}',
      'POST /api/v1/boards/{boardId}/members',
      'DELETE /api/v1/boards/{boardId}/members/{userId}',
      'GET /api/v1/boards/{boardId}/statuses',
      'PUT /api/v1/boards/{boardId}/statuses',
      'GET /api/v1/boards/{boardId}/transitions',
      'PUT /api/v1/boards/{boardId}/transitions',
    ]),
  },
  {
    name: 'statuses',
    entry: 'functions/statuses.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/statuses',
      'POST /api/v1/statuses',
      'POST /api/v1/statuses/reorder',
      'GET /api/v1/statuses/{statusId}',
      'PATCH /api/v1/statuses/{statusId}',
      'DELETE /api/v1/statuses/{statusId}',
    ]),
  },
  {
    name: 'ticket-types',
    entry: 'functions/ticket-types.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/ticket-types',
      'GET /api/v1/ticket-types/default',
      'POST /api/v1/ticket-types',
      'GET /api/v1/ticket-types/{typeId}',
      'PATCH /api/v1/ticket-types/{typeId}',
      'GET /api/v1/ticket-types/{typeId}/ticket-count',
      'DELETE /api/v1/ticket-types/{typeId}',
    ]),
  },
  {
    name: 'teams',
    entry: 'functions/teams.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/teams',
      'POST /api/v1/teams',
      'GET /api/v1/teams/{teamId}',
      'PATCH /api/v1/teams/{teamId}',
      'DELETE /api/v1/teams/{teamId}',
      'POST /api/v1/teams/{teamId}/members',
      'DELETE /api/v1/teams/{teamId}/members/{userId}',
    ]),
  },
  {
    name: 'customers',
    entry: 'functions/customers.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/customers',
      'POST /api/v1/customers',
      'GET /api/v1/customers/{customerId}',
      'PATCH /api/v1/customers/{customerId}',
      'POST /api/v1/customers/{customerId}/archive',
      'DELETE /api/v1/customers/{customerId}',
    ]),
  },
  {
    name: 'tickets',
    entry: 'functions/tickets.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/boards/{boardId}/tickets',
      'POST /api/v1/boards/{boardId}/tickets',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}',
      'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/status',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/assign',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/move',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/transition',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/approve',
      'GET /api/v1/boards/{boardId}/tickets/needing-reassignment',
      'PATCH /api/v1/boards/{boardId}/tickets/reorder',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/inline',
      'PUT /api/v1/boards/{boardId}/tickets/{ticketId}/custom-fields',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/completion-check',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/blocker',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/pull-requests',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/subtickets/{subticketId}/status',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/convert-to-subticket',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/promote-to-standalone',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/timeline',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/claim/heartbeat',
      'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/claim',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/accept',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/suggestions/{suggestionId}/reject',
    ]),
  },
  {
    name: 'comments',
    entry: 'functions/comments.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/comments',
      'POST /api/v1/boards/{boardId}/tickets/{ticketId}/comments',
      'GET /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}',
      'PATCH /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}',
      'DELETE /api/v1/boards/{boardId}/tickets/{ticketId}/comments/{commentId}',
    ]),
  },
  {
    name: 'issues',
    entry: 'functions/issues.ts',
    kind: 'http',
    table: 'read',
    routes: api(['GET /api/v1/issues']),
  },
  {
    name: 'notifications',
    entry: 'functions/notifications.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api(['GET /api/v1/notifications', 'POST /api/v1/notifications/{notificationId}/read']),
  },
  {
    name: 'labels',
    entry: 'functions/labels.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/labels',
      'POST /api/v1/labels',
      'PATCH /api/v1/labels/{labelId}',
      'DELETE /api/v1/labels/{labelId}',
    ]),
  },
  {
    name: 'custom-fields',
    entry: 'functions/custom-fields.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/custom-fields',
      'POST /api/v1/custom-fields',
      'PATCH /api/v1/custom-fields/{customFieldId}',
      'DELETE /api/v1/custom-fields/{customFieldId}',
    ]),
  },
  {
    name: 'agents',
    entry: 'functions/agents.ts',
    kind: 'http',
    table: 'readWrite',
    routes: api([
      'GET /api/v1/organizations/{orgId}/agents',
      'POST /api/v1/organizations/{orgId}/agents',
      'GET /api/v1/organizations/{orgId}/agents/policies',
      'PATCH /api/v1/organizations/{orgId}/agents/policies',
      'GET /api/v1/organizations/{orgId}/agents/overview',
      'GET /api/v1/organizations/{orgId}/agents/{agentId}',
      'PATCH /api/v1/organizations/{orgId}/agents/{agentId}',
      'DELETE /api/v1/organizations/{orgId}/agents/{agentId}',
      'GET /api/v1/organizations/{orgId}/agents/{agentId}/tokens',
      'POST /api/v1/organizations/{orgId}/agents/{agentId}/tokens',
      'DELETE /api/v1/organizations/{orgId}/agents/{agentId}/tokens/{tokenId}',
    ]),
  },
  {
    // API Gateway's `$default` route: whatever no other route matches (404, or 405 with Allow).
    name: 'fallback',
    entry: 'functions/fallback.ts',
    kind: 'http',
    table: 'none',
    routes: api(['$default']),
  },
  {
    name: 'events',
    entry: 'functions/events.ts',
    kind: 'stream',
    table: 'readWrite',
    sendsToWebhookQueue: true,
  },
  {
    name: 'sweeper',
    entry: 'functions/sweeper.ts',
    kind: 'schedule',
    everyMinutes: 1,
    table: 'readWrite',
  },
];

export const httpGroups = (): HttpGroup[] =>
  functionGroups.filter((group): group is HttpGroup => group.kind === 'http');

/** Queues, created by the CDK stack and by the local runtime from this one definition. */
export const queues = {
  webhook: {
    name: 'webhook-deliveries',
    /** Longer than the delivery Lambda's timeout (10 s HTTP timeout plus overhead). */
    visibilityTimeoutSeconds: 60,
    maxReceiveCount: 8,
    deadLetter: { name: 'webhook-deliveries-dlq', retentionDays: 14 },
  },
} as const;
