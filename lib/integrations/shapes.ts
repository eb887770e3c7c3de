import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';
import { GIT_PROVIDERS, PIPELINE_STATUSES, PR_STATES, REVIEW_STATUSES } from '../db/entities/index.js';

/** A git provider connection: where the provider sends its hooks and which hooks to turn on. */
export const integrationResult = z.lazy(() =>
  z
    .strictObject({
      provider: z.enum(GIT_PROVIDERS),
      webhookUrl: z.string().meta({ description: "The URL to give the provider (this organization's own origin)" }),
      contentType: z.literal('application/json'),
      events: z.array(z.string()).meta({ description: 'The hooks to turn on at the provider' }),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'GitIntegration' }),
);

export const connectedIntegrationResult = z.lazy(() =>
  integrationResult
    .unwrap()
    .extend({
      secret: z.string().meta({ description: 'The secret to give the provider (GitHub: webhook secret; GitLab: secret token); shown once' }),
    })
    .meta({ id: 'ConnectedGitIntegration' }),
);

/** What the service did with a provider's hook. */
export const hookOutcomeResult = z.lazy(() =>
  z
    .strictObject({
      event: z.string(),
      outcome: z.enum(['recorded', 'ignored', 'duplicate']).meta({ description: '`duplicate`: this delivery id was handled before; `ignored`: an event the service does not read' }),
    })
    .meta({ id: 'HookOutcome' }),
);

/** A pull request linked to a ticket (docs/features.md, Connecting GitHub or GitLab). */
export const pullRequestResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      prNumber: z.number().int(),
      title: z.string(),
      url: z.string(),
      branchName: z.string(),
      state: z.enum(PR_STATES),
      authorName: z.string(),
      provider: z.enum(GIT_PROVIDERS),
      repoFullName: z.string(),
      pipelineStatus: z.enum(PIPELINE_STATUSES).nullable(),
      reviewStatus: z.enum(REVIEW_STATUSES).nullable(),
      requiresHumanReview: z.boolean().meta({ description: 'Authored by an agent while the policy prsRequireHumanReview was on (informational)' }),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'PullRequest' }),
);

/** The shapes' types: presenters are typed against them. */
export type Integration = z.output<typeof integrationResult>;
