import * as z from 'zod';
import { authenticated, open, originOf, type Routes, onFirstUse } from '../http/routes.js';
import { GIT_PROVIDERS } from '../db/entities/index.js';
import { deleteIntegration, getIntegration, putIntegration, receiveGithubHook, receiveGitlabHook } from './integrations.js';
import { connectedIntegrationResult, hookOutcomeResult, integrationResult } from './shapes.js';

const providerParams = z.object({ provider: z.enum(GIT_PROVIDERS) });
const REFUSED = ['UNAUTHENTICATED'] as const;

/** Routes of the `integrations` group: git provider connections and the providers' inbound hooks (docs/features.md, Connecting GitHub or GitLab). */
export const integrationsRoutes: Routes = {
  'GET /api/v1/integrations/{provider}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get the connection to a git provider',
      result: integrationResult,
      params: providerParams,
      handler: (ctx, { params, request }) => getIntegration(ctx, params.provider, originOf(request)),
    }),
  ),
  'PUT /api/v1/integrations/{provider}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Connect a git provider, or replace its secret (returned once)',
      description:
        'Answers the URL to configure at the provider and a new secret: GitHub webhook secret (`X-Hub-Signature-256`) or GitLab secret token (`X-Gitlab-Token`). A previous secret stops working at once.',
      result: connectedIntegrationResult,
      params: providerParams,
      handler: (ctx, { params, request }) => putIntegration(ctx, params.provider, originOf(request)),
    }),
  ),
  'DELETE /api/v1/integrations/{provider}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Disconnect a git provider',
      status: 204,
      params: providerParams,
      handler: (ctx, { params }) => deleteIntegration(ctx, params.provider),
    }),
  ),
  'POST /api/v1/integrations/github/events': onFirstUse(() =>
    open({
      summary: "GitHub's webhook: pull requests, reviews, check suites, workflow runs",
      description:
        'Called by GitHub on the organization\'s own origin, signed with `X-Hub-Signature-256`; a delivery (`X-GitHub-Delivery`) is handled once. A pull request is linked to the ticket whose display id its branch name or title contains.',
      result: hookOutcomeResult,
      errors: REFUSED,
      handler: (ctx, { request }) => receiveGithubHook(ctx.clock, { orgSlug: request.orgSlug, headers: request.headers, bodyText: request.bodyText }),
    }),
  ),
  'POST /api/v1/integrations/gitlab/events': onFirstUse(() =>
    open({
      summary: "GitLab's webhook: merge request and pipeline hooks",
      description: "Called by GitLab on the organization's own origin with the secret token in `X-Gitlab-Token`.",
      result: hookOutcomeResult,
      errors: REFUSED,
      handler: (ctx, { request }) => receiveGitlabHook(ctx.clock, { orgSlug: request.orgSlug, headers: request.headers, bodyText: request.bodyText }),
    }),
  ),
};
