import { createHmac } from 'node:crypto';
import type * as z from 'zod';
import { addSeconds, epochSeconds, type Clock } from '../core/clock.js';
import { webhookSecretKey, webhookSecretKeys } from '../core/config.js';
import { notFound, unauthenticated } from '../core/errors.js';
import { randomSecret, safeEqual, sha256Hex } from '../core/ids.js';
import { seal, unsealWithAny } from '../core/sealed.js';
import type { DomainContext } from '../db/context.js';
import type { GitProvider, IntegrationItem, OrganizationItem } from '../db/entities/index.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import { requirePermission } from '../organizations/index.js';
import { githubPayloads, githubRunStatus, gitlabPayloads, gitlabPipelineStatus, parsePayload, type GithubEvent, type GitlabEvent } from './payloads.js';
import { recordPipeline, recordPullRequest } from './pull-requests.js';
import type { Integration } from './shapes.js';

/** The hooks to turn on at the provider, by provider (what the service reads). */
export const PROVIDER_EVENTS: Record<GitProvider, string[]> = {
  github: ['pull_request', 'pull_request_review', 'check_suite', 'workflow_run'],
  gitlab: ['Merge request events', 'Pipeline events'],
};

/** A provider's handled deliveries are remembered a week (TTL housekeeping). */
const INBOUND_DEDUP_SECONDS = 7 * 24 * 3600;

const eventsUrl = (origin: string, provider: GitProvider) => `${origin}/api/v1/integrations/${provider}/events`;

function present(integration: IntegrationItem, origin: string): Integration {
  return {
    provider: integration.provider,
    webhookUrl: eventsUrl(origin, integration.provider),
    contentType: 'application/json',
    events: PROVIDER_EVENTS[integration.provider],
    createdAt: integration.createdAt,
    updatedAt: integration.updatedAt,
  };
}

async function loadIntegration(orgId: string, provider: GitProvider): Promise<IntegrationItem | undefined> {
  return (await db().entities.integration.get({ orgId, provider }).go()).data ?? undefined;
}

/** The organization's connection to the provider: the URL to give it and the hooks to turn on (never the secret). */
export async function getIntegration(ctx: DomainContext, provider: GitProvider, origin: string) {
  requirePermission(ctx, 'webhooks:manage');
  const integration = await loadIntegration(ctx.org.orgId, provider);
  if (!integration) throw notFound('Integration');
  return present(integration, origin);
}

/**
 * Connects the provider, or replaces its secret: a new secret, returned in this response only,
 * to paste into the provider's webhook settings with the URL. GitHub signs with it, so it is
 * stored sealed; GitLab sends it back as a token, so only its SHA-256 is stored.
 */
export async function putIntegration(ctx: DomainContext, provider: GitProvider, origin: string) {
  requirePermission(ctx, 'webhooks:manage');
  const secret = randomSecret(32);
  const now = ctx.clock.now().toISOString();
  // One write: a first connection sets createdAt, a replacement keeps it.
  const { data } = await db()
    .entities.integration.upsert({
      orgId: ctx.org.orgId,
      provider,
      ...(provider === 'github' ? { sealedSecret: seal(secret, webhookSecretKey()) } : { secretSha256: sha256Hex(secret) }),
      updatedAt: now,
    })
    .ifNotExists({ createdAt: now })
    .go({ response: 'all_new' });
  const integration = data as IntegrationItem;
  return { ...present(integration, origin), secret };
}

export async function deleteIntegration(ctx: DomainContext, provider: GitProvider): Promise<void> {
  requirePermission(ctx, 'webhooks:manage');
  try {
    await db()
      .entities.integration.delete({ orgId: ctx.org.orgId, provider })
      .where((attr, op) => op.exists(attr.provider))
      .go({ response: 'none' });
  } catch (error) {
    throw isConditionFailure(error) ? notFound('Integration') : error;
  }
}

/** One call from a provider, as the HTTP adapter hands it over. */
export interface ProviderCall {
  orgSlug: string | null;
  headers: Record<string, string | undefined>;
  /** The raw body: the signature is over these exact bytes. */
  bodyText: string;
}

export type HookOutcome = { event: string; outcome: 'recorded' | 'ignored' | 'duplicate' };

/**
 * The organization a provider call is for, once it has proven itself: GitHub by
 * `X-Hub-Signature-256` (HMAC-SHA256 of the body with the secret), GitLab by `X-Gitlab-Token`
 * (the secret itself), both compared in constant time. Anything else (no organization, no
 * integration, no or a wrong signature) is the same 401, and nothing is recorded.
 */
async function verifiedOrganization(provider: GitProvider, call: ProviderCall): Promise<OrganizationItem> {
  const refused = () => unauthenticated(provider === 'github' ? 'Missing or invalid X-Hub-Signature-256' : 'Missing or invalid X-Gitlab-Token');
  if (!call.orgSlug) throw refused();
  const slug = (await db().entities.organizationSlug.get({ slug: call.orgSlug }).go()).data;
  if (!slug) throw refused();
  const [org, integration] = await Promise.all([
    db().entities.organization.get({ orgId: slug.orgId }).go().then((result) => result.data),
    loadIntegration(slug.orgId, provider),
  ]);
  if (!org || !integration) throw refused();
  if (provider === 'github') {
    const signature = call.headers['x-hub-signature-256'] ?? '';
    const expected = `sha256=${createHmac('sha256', unsealWithAny(integration.sealedSecret!, webhookSecretKeys())).update(call.bodyText).digest('hex')}`;
    if (!safeEqual(signature, expected)) throw refused();
  } else {
    const token = call.headers['x-gitlab-token'] ?? '';
    if (!safeEqual(sha256Hex(token), integration.secretSha256!)) throw refused();
  }
  return org;
}

/**
 * Runs `work` once per provider delivery id: a conditional write claims the id first, and is
 * taken back if the work fails, so the provider's retry is not mistaken for a duplicate.
 */
async function oncePerDelivery(org: OrganizationItem, provider: GitProvider, deliveryId: string | undefined, clock: Clock, work: () => Promise<void>): Promise<boolean> {
  if (!deliveryId) {
    await work();
    return true;
  }
  const key = { orgId: org.orgId, provider, deliveryId: deliveryId.slice(0, 200) };
  try {
    await db()
      .entities.inboundDelivery.create({ ...key, ttl: epochSeconds(addSeconds(clock.now(), INBOUND_DEDUP_SECONDS)) })
      .go({ response: 'none' });
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
  try {
    await work();
    return true;
  } catch (error) {
    await db().entities.inboundDelivery.delete(key).go({ response: 'none' }).catch(() => undefined);
    throw error;
  }
}

/** `POST /api/v1/integrations/github/events`: pull requests, reviews, check suites and workflow runs. */
export async function receiveGithubHook(clock: Clock, call: ProviderCall): Promise<HookOutcome> {
  const org = await verifiedOrganization('github', call);
  const event = call.headers['x-github-event'] ?? '';
  if (!(event in githubPayloads) || event === 'ping') return { event, outcome: 'ignored' };
  const work = githubWork(org, event as Exclude<GithubEvent, 'ping'>, call.bodyText, clock);
  const done = await oncePerDelivery(org, 'github', call.headers['x-github-delivery'], clock, work);
  return { event, outcome: done ? 'recorded' : 'duplicate' };
}

function githubWork(org: OrganizationItem, event: Exclude<GithubEvent, 'ping'>, bodyText: string, clock: Clock): () => Promise<void> {
  const provider = 'github' as const;
  const prFacts = (pr: (typeof githubPayloads)['pull_request']['_output']['pull_request'], repoFullName: string) => ({
    provider,
    repoFullName,
    number: pr.number,
    title: pr.title,
    url: pr.html_url,
    branchName: pr.head.ref,
    state: pr.merged ? ('merged' as const) : pr.state,
    authorName: pr.user.login,
  });
  // Parsed before anything is written: a payload without the fields read is a 400 and changes nothing.
  switch (event) {
    case 'pull_request': {
      const payload = parsePayload(githubPayloads.pull_request, bodyText);
      return async () => void (await recordPullRequest(org, prFacts(payload.pull_request, payload.repository.full_name), clock));
    }
    case 'pull_request_review': {
      const payload = parsePayload(githubPayloads.pull_request_review, bodyText);
      const state = payload.review.state.toLowerCase();
      const reviewStatus = state === 'approved' ? 'approved' : state === 'changes_requested' ? 'changes_requested' : state === 'dismissed' ? null : undefined;
      return async () =>
        void (await recordPullRequest(org, { ...prFacts(payload.pull_request, payload.repository.full_name), ...(reviewStatus !== undefined ? { reviewStatus } : {}) }, clock));
    }
    case 'check_suite':
    case 'workflow_run': {
      // biome-ignore lint/suspicious/noExplicitAny: the provider's payload beyond the fields this code reads
      const payload = parsePayload(githubPayloads[event] as z.ZodType, bodyText) as { repository: { full_name: string } } & Record<string, any>;
      const run = event === 'check_suite' ? payload.check_suite : payload.workflow_run;
      return async () =>
        void (await recordPipeline(
          org,
          {
            provider,
            repoFullName: payload.repository.full_name,
            providerPipelineId: `${event}:${run.id}`,
            ref: run.head_branch ?? '',
            status: githubRunStatus(run.status, run.conclusion),
            ...(run.html_url ?? run.url ? { webUrl: run.html_url ?? run.url } : {}),
            pullRequestNumbers: run.pull_requests.map((pr: { number: number }) => pr.number),
          },
          clock,
        ));
    }
  }
}

/** `POST /api/v1/integrations/gitlab/events`: merge request and pipeline hooks. */
export async function receiveGitlabHook(clock: Clock, call: ProviderCall): Promise<HookOutcome> {
  const org = await verifiedOrganization('gitlab', call);
  const event = call.headers['x-gitlab-event'] ?? '';
  if (!(event in gitlabPayloads)) return { event, outcome: 'ignored' };
  const provider = 'gitlab' as const;
  let work: () => Promise<void>;
  if ((event as GitlabEvent) === 'Merge Request Hook') {
    const payload = parsePayload(gitlabPayloads['Merge Request Hook'], call.bodyText);
    const mr = payload.object_attributes;
    const reviewStatus = mr.action === 'approved' ? 'approved' : mr.action === 'unapproved' ? null : undefined;
    work = async () =>
      void (await recordPullRequest(
        org,
        {
          provider,
          repoFullName: payload.project.path_with_namespace,
          number: mr.iid,
          title: mr.title,
          url: mr.url,
          branchName: mr.source_branch,
          state: mr.state === 'merged' ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
          authorName: payload.user.username,
          ...(reviewStatus !== undefined ? { reviewStatus } : {}),
        },
        clock,
      ));
  } else {
    const payload = parsePayload(gitlabPayloads['Pipeline Hook'], call.bodyText);
    const run = payload.object_attributes;
    const webUrl = run.url ?? (payload.project.web_url ? `${payload.project.web_url}/-/pipelines/${run.id}` : undefined);
    work = async () =>
      void (await recordPipeline(
        org,
        {
          provider,
          repoFullName: payload.project.path_with_namespace,
          providerPipelineId: String(run.id),
          ref: run.ref ?? '',
          status: gitlabPipelineStatus(run.status),
          ...(webUrl ? { webUrl } : {}),
          pullRequestNumbers: payload.merge_request ? [payload.merge_request.iid] : [],
        },
        clock,
      ));
  }
  const done = await oncePerDelivery(org, provider, call.headers['x-gitlab-event-uuid'], clock, work);
  return { event, outcome: done ? 'recorded' : 'duplicate' };
}
