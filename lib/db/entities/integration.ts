import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { NO_KEY } from './ticket.js';

export const GIT_PROVIDERS = ['github', 'gitlab'] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];

/**
 * An organization's connection to a git provider: the secret the provider's webhooks prove
 * themselves with. GitHub signs bodies with it (HMAC), so it is kept sealed (recoverable only
 * with WEBHOOK_SECRET_KEY); GitLab sends it as a token, so only its SHA-256 is kept.
 */
export const Integration = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'integration', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    provider: { type: GIT_PROVIDERS, required: true },
    sealedSecret: { type: 'string' },
    secretSha256: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['provider'] } },
  },
}, config);
export type IntegrationItem = EntityItem<ReturnType<typeof Integration>>;

export const PR_STATES = ['open', 'closed', 'merged'] as const;
export type PrState = (typeof PR_STATES)[number];
export const PIPELINE_STATUSES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];
export const REVIEW_STATUSES = ['approved', 'changes_requested'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/**
 * A pull (merge) request, keyed by (provider, repository, number) within its organization:
 * creating this item is the conditional write that makes `pr.opened` fire exactly once.
 * Linked to a ticket when a display id was found in its branch or title (gsi1, sparse).
 */
export const PullRequest = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'pullRequest', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    provider: { type: GIT_PROVIDERS, required: true },
    repoFullName: { type: 'string', required: true },
    number: { type: 'number', required: true },
    prId: { type: 'string', required: true },
    title: { type: 'string', required: true },
    url: { type: 'string', required: true },
    branchName: { type: 'string', required: true },
    state: { type: PR_STATES, required: true },
    pipelineStatus: { type: PIPELINE_STATUSES },
    reviewStatus: { type: REVIEW_STATUSES },
    authorName: { type: 'string', required: true },
    ticketId: { type: 'string' },
    /** Index key of byTicket: the ticket id, or NO_KEY while no ticket is linked (derived). */
    // biome-ignore lint/suspicious/noExplicitAny: ElectroDB types a watched attribute's `item` as any
    ticketKey: { type: 'string', watch: ['ticketId'], set: (_value?: string, item?: any) => item?.ticketId ?? NO_KEY },
    boardId: { type: 'string' },
    /** The agent whose gitIdentity matched the author. */
    agentId: { type: 'string' },
    requiresHumanReview: { type: 'boolean', required: true, default: false },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
    /** Optimistic lock: every change is conditional on the version read. */
    version: { type: 'number', required: true, default: 1 },
  },
  indexes: {
    byNumber: {
      pk: { field: 'pk', composite: ['orgId', 'provider', 'repoFullName', 'number'] },
      sk: { field: 'sk', composite: [] },
    },
    byTicket: {
      index: 'gsi1',
      condition: (attr) => attr.ticketKey !== undefined && attr.ticketKey !== NO_KEY,
      pk: { field: 'gsi1pk', composite: ['orgId', 'ticketKey'] },
      sk: { field: 'gsi1sk', composite: ['createdAt', 'prId'] },
    },
  },
}, config);
export type PullRequestItem = EntityItem<ReturnType<typeof PullRequest>>;

/** A CI/CD run, keyed by (provider, repository, the provider's run id); `pipeline.updated` fires when it is new or its status changes. */
export const Pipeline = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'pipeline', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    provider: { type: GIT_PROVIDERS, required: true },
    repoFullName: { type: 'string', required: true },
    providerPipelineId: { type: 'string', required: true },
    pipelineId: { type: 'string', required: true },
    ref: { type: 'string', required: true },
    status: { type: PIPELINE_STATUSES, required: true },
    webUrl: { type: 'string' },
    pullRequestId: { type: 'string' },
    boardId: { type: 'string' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byRun: {
      pk: { field: 'pk', composite: ['orgId', 'provider', 'repoFullName', 'providerPipelineId'] },
      sk: { field: 'sk', composite: [] },
    },
  },
}, config);
export type PipelineItem = EntityItem<ReturnType<typeof Pipeline>>;

/** A provider delivery already handled (GitHub's X-GitHub-Delivery), kept a week so a resent hook is recognised. */
export const InboundDelivery = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'inboundDelivery', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    provider: { type: GIT_PROVIDERS, required: true },
    deliveryId: { type: 'string', required: true },
    ttl: { type: 'number', required: true },
  },
  indexes: {
    byDelivery: { pk: { field: 'pk', composite: ['orgId', 'provider', 'deliveryId'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
