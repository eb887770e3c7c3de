import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type {
  GitProvider, OrganizationItem, PipelineItem, PipelineStatus, PrState, PullRequestItem, ReviewStatus, UserItem,
} from '../db/entities/index.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { db } from '../db/service.js';
import { guarded, transact } from '../db/transact.js';
import { eventPuts, newEventRecord, type EventInput } from '../events/index.js';
import { agentPoliciesOf } from '../organizations/index.js';

/** What a provider's hook says about a pull request (undefined: the hook does not say). */
export interface PullRequestFacts {
  provider: GitProvider;
  repoFullName: string;
  number: number;
  title: string;
  url: string;
  branchName: string;
  state: PrState;
  authorName: string;
  reviewStatus?: ReviewStatus | null;
  pipelineStatus?: PipelineStatus;
}

/**
 * Display ids a branch name or title mentions: a board prefix (2–10 letters or digits), a dash
 * and a number, on word boundaries, any case (`feature/plat-12-login`, `PLAT-12: fix login`).
 */
export function ticketKeysIn(text: string): string[] {
  const keys = [...text.matchAll(/(?<![A-Za-z0-9])([A-Za-z][A-Za-z0-9]{1,9})-(\d{1,12})(?![0-9])/g)].map((match) => `${match[1]!.toUpperCase()}-${Number(match[2])}`);
  return [...new Set(keys)];
}

/** The first ticket a key in the branch, then in the title, names (one GetItem per key tried). */
async function linkedTicket(orgId: string, branchName: string, title: string): Promise<{ ticketId: string; boardId: string } | undefined> {
  for (const displayId of [...ticketKeysIn(branchName), ...ticketKeysIn(title)]) {
    const key = (await db().entities.ticketKey.get({ orgId, displayId }).go()).data;
    if (!key) continue;
    const ticket = (await db().entities.ticket.get({ ticketId: key.ticketId }).go()).data;
    if (ticket && ticket.orgId === orgId && !ticket.isDeleted) return { ticketId: ticket.ticketId, boardId: ticket.boardId };
  }
  return undefined;
}

/** The agent whose gitIdentity (a login or commit e-mail) is the author's, if any. */
async function agentAuthor(orgId: string, authorName: string): Promise<UserItem | undefined> {
  const author = authorName.toLowerCase();
  const { data } = await db()
    .entities.user.query.byOrg({ orgId })
    .where((attr, op) => `${op.eq(attr.isAgent, true)} AND ${op.exists(attr.gitIdentity)}`)
    .go({ pages: 'all' });
  return data.find((user) => !user.isDeleted && user.gitIdentity?.toLowerCase() === author);
}

/** The data of the pull-request events (docs/webhooks.md). */
function prEventData(pr: PullRequestItem) {
  return {
    prId: pr.prId,
    ticketId: pr.ticketId ?? null,
    boardId: pr.boardId ?? null,
    organizationId: pr.orgId,
    provider: pr.provider,
    repositoryFullName: pr.repoFullName,
    externalNumber: pr.number,
    title: pr.title,
    url: pr.url,
    sourceBranch: pr.branchName,
    state: pr.state,
    pipelineStatus: pr.pipelineStatus ?? null,
    reviewStatus: pr.reviewStatus ?? null,
    requiresHumanReview: pr.requiresHumanReview,
  };
}

const prEvent = (pr: PullRequestItem, type: 'pr.opened' | 'pr.status_changed' | 'pr.merged'): EventInput => ({ type, data: prEventData(pr), subjectId: pr.prId });

/**
 * Records what a hook says about a pull request. The first hook that mentions it creates the
 * record (conditional on its key: provider, repository, number) and with it, in the same
 * transaction, `pr.opened` and the authoring agent's counters; so a hook delivered twice, or two
 * racing, open it once. Later hooks change it under an optimistic lock and emit
 * `pr.status_changed` when its state, pipeline status or review status changes, and `pr.merged`
 * when it is merged. A pull request without a linked ticket is linked by a later hook whose
 * branch or title names one.
 */
export async function recordPullRequest(org: OrganizationItem, facts: PullRequestFacts, clock: Clock): Promise<PullRequestItem> {
  return retryLostRaces(async () => {
    const key = { orgId: org.orgId, provider: facts.provider, repoFullName: facts.repoFullName, number: facts.number };
    const existing = (await db().entities.pullRequest.get(key).go({ consistent: true })).data;
    return existing ? updatePullRequest(org, existing, facts, clock) : openPullRequest(org, facts, clock);
  });
}

async function openPullRequest(org: OrganizationItem, facts: PullRequestFacts, clock: Clock): Promise<PullRequestItem> {
  const [link, agent] = await Promise.all([linkedTicket(org.orgId, facts.branchName, facts.title), agentAuthor(org.orgId, facts.authorName)]);
  const now = clock.now().toISOString();
  const requiresHumanReview = !!agent && agentPoliciesOf(org).prsRequireHumanReview;
  const pr: PullRequestItem = {
    orgId: org.orgId,
    provider: facts.provider,
    repoFullName: facts.repoFullName,
    number: facts.number,
    prId: newId('pr'),
    title: facts.title,
    url: facts.url,
    branchName: facts.branchName,
    state: facts.state,
    ...(facts.pipelineStatus ? { pipelineStatus: facts.pipelineStatus } : {}),
    ...(facts.reviewStatus ? { reviewStatus: facts.reviewStatus } : {}),
    authorName: facts.authorName,
    ...(link ?? {}),
    ...(agent ? { agentId: agent.userId } : {}),
    requiresHumanReview,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  const events = [prEvent(pr, 'pr.opened'), ...(pr.state === 'merged' ? [prEvent(pr, 'pr.merged')] : [])].map((event) => newEventRecord(org.orgId, clock, event));
  await transact((e) => [
    // Another hook created it first: read it again and apply this one as a change.
    guarded(e.pullRequest.create(pr).commit(), () => new LostRace()),
    ...(agent
      ? [e.user.update({ orgId: org.orgId, userId: agent.userId }).add({ pullRequestCount: 1, humanReviewPullRequestCount: requiresHumanReview ? 1 : 0 }).commit()]
      : []),
    ...eventPuts(e, events),
  ]);
  return pr;
}

async function updatePullRequest(org: OrganizationItem, existing: PullRequestItem, facts: PullRequestFacts, clock: Clock): Promise<PullRequestItem> {
  const link = existing.ticketId ? undefined : await linkedTicket(org.orgId, facts.branchName, facts.title);
  const next: PullRequestItem = {
    ...existing,
    title: facts.title,
    url: facts.url,
    branchName: facts.branchName,
    // A merged pull request stays merged whatever a late hook says.
    state: existing.state === 'merged' ? 'merged' : facts.state,
    ...(facts.pipelineStatus !== undefined ? { pipelineStatus: facts.pipelineStatus } : {}),
    ...(facts.reviewStatus !== undefined ? { reviewStatus: facts.reviewStatus ?? undefined } : {}),
    ...(link ?? {}),
  };
  const statusChanged =
    next.state !== existing.state || next.pipelineStatus !== existing.pipelineStatus || next.reviewStatus !== existing.reviewStatus;
  const changed = statusChanged || !!link || next.title !== existing.title || next.url !== existing.url || next.branchName !== existing.branchName;
  if (!changed) return existing;
  next.updatedAt = clock.now().toISOString();
  next.version = existing.version + 1;
  const events = [
    ...(statusChanged ? [prEvent(next, 'pr.status_changed')] : []),
    ...(next.state === 'merged' && existing.state !== 'merged' ? [prEvent(next, 'pr.merged')] : []),
  ].map((event) => newEventRecord(org.orgId, clock, event));
  if (next.reviewStatus === undefined) delete next.reviewStatus;
  await transact((e) => [
    // The whole item is put again, so a new ticket link also writes its index keys.
    guarded(e.pullRequest.put(next).where((attr, op) => op.eq(attr.version, existing.version)).commit(), () => new LostRace()),
    ...eventPuts(e, events),
  ]);
  return next;
}

/** What a hook says about a CI/CD run. */
export interface PipelineFacts {
  provider: GitProvider;
  repoFullName: string;
  providerPipelineId: string;
  ref: string;
  status: PipelineStatus;
  webUrl?: string;
  /** The pull request numbers the run belongs to (GitHub lists them; GitLab names one merge request). */
  pullRequestNumbers: number[];
}

/**
 * Records a CI/CD run: `pipeline.updated` when it is new or its status changed (a conditional
 * write on the status, so a repeated hook emits nothing), and the run's status becomes the
 * pipeline status of its pull requests (`pr.status_changed` when that changes it).
 */
export async function recordPipeline(org: OrganizationItem, facts: PipelineFacts, clock: Clock): Promise<PipelineItem | undefined> {
  const prs = (
    await Promise.all(
      facts.pullRequestNumbers.map(
        async (number) =>
          (await db().entities.pullRequest.get({ orgId: org.orgId, provider: facts.provider, repoFullName: facts.repoFullName, number }).go()).data,
      ),
    )
  ).filter((pr): pr is PullRequestItem => !!pr);
  const recorded = await retryLostRaces(async () => {
    const key = { orgId: org.orgId, provider: facts.provider, repoFullName: facts.repoFullName, providerPipelineId: facts.providerPipelineId };
    const existing = (await db().entities.pipeline.get(key).go({ consistent: true })).data;
    if (existing && existing.status === facts.status) return undefined;
    const now = clock.now().toISOString();
    const pipeline: PipelineItem = {
      ...key,
      pipelineId: existing?.pipelineId ?? newId('pl'),
      ref: facts.ref,
      status: facts.status,
      ...(facts.webUrl ? { webUrl: facts.webUrl } : {}),
      ...(prs[0] ? { pullRequestId: prs[0].prId } : {}),
      ...(prs[0]?.boardId ? { boardId: prs[0].boardId } : {}),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const event = newEventRecord(org.orgId, clock, {
      type: 'pipeline.updated',
      subjectId: pipeline.pipelineId,
      data: {
        pipelineId: pipeline.pipelineId,
        boardId: pipeline.boardId ?? null,
        provider: pipeline.provider,
        repositoryFullName: pipeline.repoFullName,
        providerPipelineId: pipeline.providerPipelineId,
        ref: pipeline.ref,
        status: pipeline.status,
        webUrl: pipeline.webUrl ?? null,
        pullRequestId: pipeline.pullRequestId ?? null,
      },
    });
    await transact((e) => [
      guarded(
        e.pipeline
          .put(pipeline)
          .where((attr, op) => (existing ? op.eq(attr.status, existing.status) : op.notExists(attr.pipelineId)))
          .commit(),
        () => new LostRace(),
      ),
      ...eventPuts(e, [event]),
    ]);
    return pipeline;
  });
  for (const pr of prs) await setPipelineStatus(org, pr, facts.status, clock);
  return recorded;
}

/** What the stored pull request says, as hook facts. */
const factsOf = (pr: PullRequestItem): PullRequestFacts => ({
  provider: pr.provider,
  repoFullName: pr.repoFullName,
  number: pr.number,
  title: pr.title,
  url: pr.url,
  branchName: pr.branchName,
  state: pr.state,
  authorName: pr.authorName,
});

/** A run's status becomes its pull request's pipeline status: the record just read first, read again only after a lost race. */
async function setPipelineStatus(org: OrganizationItem, pr: PullRequestItem, status: PipelineStatus, clock: Clock): Promise<void> {
  await retryLostRaces(async (attempt) => {
    const current =
      attempt === 1
        ? pr
        : (await db().entities.pullRequest.get({ orgId: pr.orgId, provider: pr.provider, repoFullName: pr.repoFullName, number: pr.number }).go({ consistent: true })).data;
    if (current) await updatePullRequest(org, current, { ...factsOf(current), pipelineStatus: status }, clock);
  });
}

/** A pull request as the API shows it (docs/features.md, Connecting GitHub or GitLab). */
export function presentPullRequest(pr: PullRequestItem) {
  return {
    id: pr.prId,
    prNumber: pr.number,
    title: pr.title,
    url: pr.url,
    branchName: pr.branchName,
    state: pr.state,
    authorName: pr.authorName,
    provider: pr.provider,
    repoFullName: pr.repoFullName,
    pipelineStatus: pr.pipelineStatus ?? null,
    reviewStatus: pr.reviewStatus ?? null,
    requiresHumanReview: pr.requiresHumanReview,
    createdAt: pr.createdAt,
    updatedAt: pr.updatedAt,
  };
}

/** The pull requests linked to a ticket, oldest first (one Query on gsi1). */
export async function pullRequestsOfTicket(orgId: string, ticketId: string): Promise<PullRequestItem[]> {
  const { data } = await db().entities.pullRequest.query.byTicket({ orgId, ticketKey: ticketId }).go({ pages: 'all' });
  return data;
}
