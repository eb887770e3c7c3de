/**
 * The one route table. Every Lambda of the service is listed here with its entry file,
 * its trigger (for HTTP, the domain's route map: its keys are the API Gateway routes; the
 * table stream; a queue; the schedule) and the data access it needs. Route keys are written
 * once, as the full literal keys of each domain's route map (`lib/<domain>/http.ts`, grep a
 * path to find its handler); this table only says which Lambda serves which map. The CDK stack builds functions, routes and
 * least-privilege grants from it; the local runtime builds its HTTP server, stream
 * poller, queue poller and schedule from it. Local and cloud cannot drift.
 */
import type { Routes } from '../lib/http/routes.js';
import { ensureConsoleBuilt } from '../web/build.js';
import { healthRoutes } from '../lib/health/http.js';
import { authRoutes } from '../lib/identity/http.js';
import { userRoutes } from '../lib/users/http.js';
import { organizationRoutes } from '../lib/organizations/http.js';
import { boardsRoutes } from '../lib/boards/http.js';
import { statusesRoutes } from '../lib/statuses/http.js';
import { ticketTypesRoutes } from '../lib/ticket-types/http.js';
import { teamsRoutes } from '../lib/teams/http.js';
import { customersRoutes } from '../lib/customers/http.js';
import { ticketsRoutes } from '../lib/tickets/http/routes.js';
import { fleetRoutes } from '../lib/tickets/http/fleet.js';
import { commentsRoutes } from '../lib/comments/http.js';
import { issuesRoutes } from '../lib/tickets/http/issues.js';
import { notificationsRoutes } from '../lib/notifications/http.js';
import { labelsRoutes } from '../lib/labels/http.js';
import { customFieldsRoutes } from '../lib/custom-fields/http.js';
import { agentRoutes } from '../lib/agents/http.js';
import { webhooksRoutes } from '../lib/webhooks/http.js';
import { integrationsRoutes } from '../lib/integrations/http.js';
import { oauthRoutes } from '../lib/oauth/http.js';
import { mcpRoutes } from '../lib/mcp/http.js';
import { timeRoutes } from '../lib/time/http.js';
import { milestonesRoutes } from '../lib/milestones/http.js';
import { releasesRoutes } from '../lib/releases/http.js';
import { wikiRoutes } from '../lib/wiki/http.js';
import { fallbackRoutes } from '../lib/http/fallback.js';
import { docsRoutes, REFERENCE_RENDERER } from '../lib/docs/http.js';
import { CONSOLE_ASSET_DIR, consoleRoutes } from '../lib/console/http.js';

export type TableAccess = 'none' | 'read' | 'readWrite';

export interface HttpGroup {
  name: string;
  /** What the group serves, in a sentence: the description of its tag in the API reference. */
  description: string;
  entry: string;
  kind: 'http';
  /** The domain's route map; its keys are the function's API Gateway routes. */
  routes: Routes;
  table: TableAccess;
  /** Sends messages to the webhook queue. */
  sendsToWebhookQueue?: boolean;
  /** Needs the platform operator token hash in its environment. */
  platform?: boolean;
  /** Seals or opens webhook signing secrets: gets WEBHOOK_SECRET_KEY. */
  sealsWebhookSecrets?: boolean;
  /** Signs OAuth access tokens: gets OAUTH_SIGNING_KEY_SEED. */
  signsOAuthTokens?: boolean;
  /** Sends mail (lib/mail): gets MAIL_FROM and may send from it through SES when the stack names a sender. */
  sendsMail?: boolean;
  /**
   * Values derived from the whole route table that this function needs (infra/embeds.ts,
   * lib/core/embedded.ts): inlined into its bundle at synth time, because they are too large
   * for Lambda's environment (4 KB) and the function must not bundle every domain to compute
   * them; the local runtime provides them in-process.
   */
  embeds?: readonly EmbeddedValue[];
  /** Files of npm packages copied beside the bundle (`package/path`), read at run time. */
  assets?: readonly string[];
  /**
   * A folder built from this repository and copied beside the bundle under `name` (the console's
   * Vite build: `build` makes it, when its sources changed, and answers where it is).
   */
  builtFolder?: { name: string; build: () => string };
  /** Module specifiers the bundle resolves to a file of this repository instead (esbuild `alias`). */
  aliases?: Readonly<Record<string, string>>;
}

/** ROUTE_KEYS: every route key (JSON array). OPENAPI_DOCUMENT: the OpenAPI document (JSON). */
export type EmbeddedValue = 'ROUTE_KEYS' | 'OPENAPI_DOCUMENT';

export interface StreamConsumer {
  name: string;
  entry: string;
  kind: 'stream';
  table: TableAccess;
  sendsToWebhookQueue?: boolean;
}

export interface QueueConsumer {
  name: string;
  entry: string;
  kind: 'queue';
  /** The queue of `queues` whose messages invoke the function. */
  queue: keyof typeof queues;
  /** Messages per invocation (SQS event source batch size). */
  batchSize: number;
  table: TableAccess;
  sealsWebhookSecrets?: boolean;
}

export interface ScheduledFunction {
  name: string;
  entry: string;
  kind: 'schedule';
  /** Minutes between runs (EventBridge rate expression). */
  everyMinutes: number;
  table: TableAccess;
}

export type FunctionDefinition = HttpGroup | StreamConsumer | QueueConsumer | ScheduledFunction;

export const functionGroups: FunctionDefinition[] = [
  {
    name: 'health',
    description: 'Liveness of the service and its table.',
    entry: 'functions/health.ts',
    kind: 'http',
    table: 'read',
    routes: healthRoutes,
  },
  {
    name: 'auth',
    description: 'Sign-up of an organization, sign-in, sign-out, password changes and resets.',
    entry: 'functions/auth.ts',
    kind: 'http',
    table: 'readWrite',
    sendsMail: true,
    // With sign-up off, the platform operator still signs organizations up.
    platform: true,
    routes: authRoutes,
  },
  {
    name: 'users',
    description: 'People of the organization, invitations to join it, and their personal access tokens.',
    entry: 'functions/users.ts',
    kind: 'http',
    table: 'readWrite',
    sendsMail: true,
    routes: userRoutes,
  },
  {
    name: 'organization',
    description: 'The organization: its name, settings, plan and features; the platform operator sets plans.',
    entry: 'functions/organization.ts',
    kind: 'http',
    table: 'readWrite',
    platform: true,
    routes: organizationRoutes,
  },
  {
    name: 'boards',
    description: 'Boards, their members, the statuses they show and the transitions they allow.',
    entry: 'functions/boards.ts',
    kind: 'http',
    table: 'readWrite',
    routes: boardsRoutes,
  },
  {
    name: 'statuses',
    description: 'The organization-wide statuses tickets move through, by category.',
    entry: 'functions/statuses.ts',
    kind: 'http',
    table: 'readWrite',
    routes: statusesRoutes,
  },
  {
    name: 'ticket-types',
    description: 'The kinds of ticket an organization uses.',
    entry: 'functions/ticket-types.ts',
    kind: 'http',
    table: 'readWrite',
    routes: ticketTypesRoutes,
  },
  {
    name: 'teams',
    description: 'Teams of people, and the boards they are assigned to.',
    entry: 'functions/teams.ts',
    kind: 'http',
    table: 'readWrite',
    routes: teamsRoutes,
  },
  {
    name: 'customers',
    description: 'Customers, whose users see only the boards assigned to them.',
    entry: 'functions/customers.ts',
    kind: 'http',
    table: 'readWrite',
    routes: customersRoutes,
  },
  {
    name: 'tickets',
    description: 'Tickets of a board: create, edit, move, approve, subtickets, timelines and suggestions.',
    entry: 'functions/tickets.ts',
    kind: 'http',
    table: 'readWrite',
    routes: ticketsRoutes,
  },
  {
    name: 'fleet',
    description: 'The loop of a fleet of agents: claims (exclusive, expiring, fenced leases), claim-next, handoffs, and dependencies between tickets.',
    entry: 'functions/fleet.ts',
    kind: 'http',
    table: 'readWrite',
    routes: fleetRoutes,
  },
  {
    name: 'comments',
    description: 'Comments and threads on a ticket.',
    entry: 'functions/comments.ts',
    kind: 'http',
    table: 'readWrite',
    routes: commentsRoutes,
  },
  {
    name: 'issues',
    description: 'The cross-board list of tickets the caller may see, with filters (claimable work among them).',
    entry: 'functions/issues.ts',
    kind: 'http',
    table: 'read',
    routes: issuesRoutes,
  },
  {
    name: 'notifications',
    description: 'The notifications of the caller, newest first.',
    entry: 'functions/notifications.ts',
    kind: 'http',
    table: 'readWrite',
    routes: notificationsRoutes,
  },
  {
    name: 'labels',
    description: 'Labels tickets carry.',
    entry: 'functions/labels.ts',
    kind: 'http',
    table: 'readWrite',
    routes: labelsRoutes,
  },
  {
    name: 'custom-fields',
    description: 'Custom fields of tickets.',
    entry: 'functions/custom-fields.ts',
    kind: 'http',
    table: 'readWrite',
    routes: customFieldsRoutes,
  },
  {
    name: 'agents',
    description: 'AI agents: seat-free machine users, their tokens, policies and the overview of their work.',
    entry: 'functions/agents.ts',
    kind: 'http',
    table: 'readWrite',
    routes: agentRoutes,
  },
  {
    name: 'webhooks',
    description: 'Webhook endpoints, their signed deliveries, the delivery log, redelivery and ping.',
    entry: 'functions/webhooks.ts',
    kind: 'http',
    table: 'readWrite',
    sealsWebhookSecrets: true,
    // Ping and redeliver queue a delivery.
    sendsToWebhookQueue: true,
    routes: webhooksRoutes,
  },
  {
    // Git provider connections, and the providers' inbound hooks (pull requests, pipelines).
    name: 'integrations',
    description: 'GitHub and GitLab hooks: pull requests and pipelines linked to tickets.',
    entry: 'functions/integrations.ts',
    kind: 'http',
    table: 'readWrite',
    sealsWebhookSecrets: true,
    routes: integrationsRoutes,
  },
  {
    // The OAuth 2.0 authorization server: discovery, keys, registration, the sign-in and consent pages, tokens, revocation, grants.
    name: 'oauth',
    description: 'The OAuth 2.0 authorization server of each organization: discovery, registration, sign-in and consent, tokens, revocation and grants.',
    entry: 'functions/oauth.ts',
    kind: 'http',
    table: 'readWrite',
    signsOAuthTokens: true,
    routes: oauthRoutes,
  },
  {
    // Milestones of boards (the Milestones & Releases feature).
    name: 'milestones',
    description: 'Milestones of a board, with progress kept exact.',
    entry: 'functions/milestones.ts',
    kind: 'http',
    table: 'readWrite',
    routes: milestonesRoutes,
  },
  {
    // Releases of boards (the Milestones & Releases feature): their milestones and tickets.
    name: 'releases',
    description: 'Releases of a board, gathering milestones and tickets.',
    entry: 'functions/releases.ts',
    kind: 'http',
    table: 'readWrite',
    routes: releasesRoutes,
  },
  {
    // The wiki: spaces, their roles and members, folders, pages with versions, search.
    name: 'wiki',
    description: 'Wiki spaces, folders and pages with versions, roles and search.',
    entry: 'functions/wiki.ts',
    kind: 'http',
    table: 'readWrite',
    routes: wikiRoutes,
  },
  {
    // Time tracking: timers, entries and their approval, booking items, the time-booking sync endpoint.
    name: 'time-tracking',
    description: 'Timers, time entries, approval of agent time, booking items, summaries and the time-booking sync.',
    entry: 'functions/time-tracking.ts',
    kind: 'http',
    table: 'readWrite',
    sealsWebhookSecrets: true,
    routes: timeRoutes,
  },
  {
    // The remote MCP server: tools over the same domain functions as the REST routes.
    name: 'mcp',
    description: 'The remote MCP server (Model Context Protocol) over the same domain functions as REST.',
    entry: 'functions/mcp.ts',
    kind: 'http',
    table: 'readWrite',
    routes: mcpRoutes,
    // The SDK's runtime shim from its public exports, without Ajv (lib/mcp/sdk-runtime.ts).
    aliases: { '@modelcontextprotocol/server/_shims': 'lib/mcp/sdk-runtime.ts' },
    // The MCP Apps views are built with the console (its `mcp-app/` folder, read by lib/mcp/apps.ts).
    builtFolder: { name: CONSOLE_ASSET_DIR, build: ensureConsoleBuilt },
  },
  {
    // The API reference: `GET /` (an index), the OpenAPI document and the docs page with its renderer.
    name: 'docs',
    description: 'This reference: the index, the OpenAPI document and the docs page.',
    entry: 'functions/docs.ts',
    kind: 'http',
    table: 'none',
    routes: docsRoutes,
    embeds: ['OPENAPI_DOCUMENT'],
    assets: [REFERENCE_RENDERER],
  },
  {
    name: 'console',
    description: 'The console: the web application of the people who answer for the agents (built from web/).',
    entry: 'functions/console.ts',
    kind: 'http',
    table: 'none',
    routes: consoleRoutes,
    builtFolder: { name: CONSOLE_ASSET_DIR, build: ensureConsoleBuilt },
  },
  {
    // API Gateway's `$default` route: whatever no other route matches (404, or 405 with Allow).
    name: 'fallback',
    description: 'Unknown routes (404) and wrong methods (405 with Allow).',
    entry: 'functions/fallback.ts',
    kind: 'http',
    table: 'none',
    routes: fallbackRoutes,
    embeds: ['ROUTE_KEYS'],
  },
  {
    name: 'events',
    entry: 'functions/events.ts',
    kind: 'stream',
    table: 'readWrite',
    sendsToWebhookQueue: true,
  },
  {
    // One attempt per message: signs and POSTs a delivery, records it, hides the message for
    // the pause before a retry, or parks it in the dead-letter queue after the last attempt.
    name: 'webhook-delivery',
    entry: 'functions/webhook-delivery.ts',
    kind: 'queue',
    queue: 'webhook',
    batchSize: 10,
    table: 'readWrite',
    sealsWebhookSecrets: true,
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

/** The API Gateway route keys of one HTTP function. */
export const routeKeysOf = (group: HttpGroup): string[] => Object.keys(group.routes);

/** Every API Gateway route key of the service, `$default` included. */
export const allRouteKeys = (): string[] => httpGroups().flatMap(routeKeysOf);

/** Queues, created by the CDK stack and by the local runtime from this one definition. */
export const queues = {
  webhook: {
    name: 'webhook-deliveries',
    /** Longer than the delivery function's timeout (30 s: a 10 s request plus the writes around it). */
    visibilityTimeoutSeconds: 60,
    /**
     * A safety net only: the worker itself parks a delivery in the dead-letter queue after its
     * last attempt. Each retry is one more receive of the same message, so this stays above
     * the most attempts a schedule may have (MAX_WEBHOOK_RETRIES + 1) with room for crashes.
     */
    maxReceiveCount: 16,
    deadLetter: { name: 'webhook-deliveries-dlq', retentionDays: 14 },
  },
} as const;

/** 'ticket-types' → 'TicketTypes': stable construct ids, so logical ids do not change between synths. */
export function constructId(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}
