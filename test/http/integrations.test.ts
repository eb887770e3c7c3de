import { createHmac, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, setPlan, useInProcess } from '../support/api.js';
import { dispatchedEventsOf } from '../support/events.js';
import { createAgent, createTicket } from '../support/factories.js';
import { boardSetup, type BoardSetup } from '../support/tickets.js';
import { db } from '../../lib/db/service.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/*
 * Git providers (docs/features.md, Connecting GitHub or GitLab; docs/webhooks.md pr.*, pipeline.updated): an
 * organization connects GitHub or GitLab, the provider calls the organization's own origin with
 * signed hooks, pull requests link to tickets by a display id in their branch or title, and the
 * pull-request events fire from the writes that record them (pr.opened exactly once).
 */
let setup: BoardSetup;
let githubSecret: string;
let gitlabToken: string;
let ticket: any;

beforeAll(async () => {
  setup = await boardSetup('Integrations', 'GIT');
  await setPlan(setup.org.slug, 'PRO');
  githubSecret = (await setup.org.call('PUT', '/api/v1/integrations/github')).body.secret;
  gitlabToken = (await setup.org.call('PUT', '/api/v1/integrations/gitlab')).body.secret;
  ticket = await createTicket(setup.org, setup.boardId, { title: 'Login page' });
});

const REPO = 'acme/web';

function prPayload(number: number, overrides: Record<string, unknown> = {}, action = 'opened') {
  const { branch = `feature/x-${number}`, title = `Change ${number}`, state = 'open', merged = false, login = 'octocat' } = overrides as Record<string, any>;
  return {
    action,
    pull_request: { number, title, html_url: `https://github.com/${REPO}/pull/${number}`, state, merged, head: { ref: branch }, user: { login } },
    repository: { full_name: REPO },
  };
}

function github(event: string, payload: unknown, options: { delivery?: string; secret?: string; signature?: string | null } = {}) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = options.signature === undefined ? `sha256=${createHmac('sha256', options.secret ?? githubSecret).update(body).digest('hex')}` : options.signature;
  return api('POST', '/api/v1/integrations/github/events', {
    org: setup.org.slug,
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.delivery ?? randomUUID(),
      ...(signature !== null ? { 'x-hub-signature-256': signature } : {}),
    },
  });
}

function gitlab(event: string, payload: unknown, token = gitlabToken) {
  return api('POST', '/api/v1/integrations/gitlab/events', {
    org: setup.org.slug,
    rawBody: JSON.stringify(payload),
    headers: { 'content-type': 'application/json', 'x-gitlab-event': event, 'x-gitlab-token': token },
  });
}

const prRecord = async (number: number, provider = 'github', repoFullName = REPO) =>
  (await db().entities.pullRequest.get({ orgId: setup.org.orgId, provider: provider as 'github', repoFullName, number }).go({ consistent: true })).data;

const eventsOf = async (prId: string, atLeast: number) => (await dispatchedEventsOf(setup.org.orgId, prId, atLeast)).sort((a, b) => a.eventId.localeCompare(b.eventId));

describe('integration settings', () => {
  it('connects a provider: the URL to configure and a secret shown once; a new PUT replaces the secret', async () => {
    const put = await setup.org.call('PUT', '/api/v1/integrations/github', { headers: { host: `${setup.org.slug}.localhost:3000` } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      provider: 'github',
      webhookUrl: `http://${setup.org.slug}.localhost:3000/api/v1/integrations/github/events`,
      contentType: 'application/json',
      events: ['pull_request', 'pull_request_review', 'check_suite', 'workflow_run'],
      secret: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const got = await setup.org.call('GET', '/api/v1/integrations/github');
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    // The old secret no longer verifies; the new one does.
    expect((await github('ping', { zen: 'hi' })).status).toBe(401);
    githubSecret = put.body.secret;
    expect((await github('ping', { zen: 'hi' })).body).toEqual({ event: 'ping', outcome: 'ignored' });
    const stored = (await db().entities.integration.get({ orgId: setup.org.orgId, provider: 'github' }).go()).data!;
    expect(JSON.stringify(stored)).not.toContain(githubSecret);
  });

  it('needs webhooks:manage, answers 404 for an unconnected provider and 400 for an unknown one', async () => {
    const member = await createMember(setup.org);
    expect((await api('PUT', '/api/v1/integrations/github', { token: member.token, org: setup.org.slug })).status).toBe(403);
    expect((await api('GET', '/api/v1/integrations/gitlab', { token: member.token, org: setup.org.slug })).status).toBe(403);
    expect((await setup.org.call('GET', '/api/v1/integrations/bitbucket')).status).toBe(400);
    const other = await boardSetup('Other');
    expect((await other.org.call('GET', '/api/v1/integrations/github')).status).toBe(404);
    expect((await other.org.call('DELETE', '/api/v1/integrations/github')).status).toBe(404);
    await other.org.call('PUT', '/api/v1/integrations/gitlab');
    expect((await other.org.call('DELETE', '/api/v1/integrations/gitlab')).status).toBe(204);
    expect((await other.org.call('GET', '/api/v1/integrations/gitlab')).status).toBe(404);
  });
});

describe('GitHub hooks', () => {
  it('links a pull request by its branch, fires pr.opened once with its documented fields, and lists it on the ticket', async () => {
    const response = await github('pull_request', prPayload(101, { branch: `feature/${ticket.displayId.toLowerCase()}-login` }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ event: 'pull_request', outcome: 'recorded' });
    const pr = (await prRecord(101))!;
    expect(pr.ticketId).toBe(ticket.id);
    const [opened] = await eventsOf(pr.prId, 1);
    expect(opened!.type).toBe('pr.opened');
    expect(opened!.data).toEqual({
      prId: pr.prId,
      ticketId: ticket.id,
      boardId: setup.boardId,
      organizationId: setup.org.orgId,
      provider: 'github',
      repositoryFullName: REPO,
      externalNumber: 101,
      title: 'Change 101',
      url: `https://github.com/${REPO}/pull/101`,
      sourceBranch: `feature/${ticket.displayId.toLowerCase()}-login`,
      state: 'open',
      pipelineStatus: null,
      reviewStatus: null,
      requiresHumanReview: false,
    });
    const listed = await setup.org.call('GET', `/api/v1/boards/${setup.boardId}/tickets/${ticket.id}/pull-requests`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: pr.prId, prNumber: 101, state: 'open', branchName: `feature/${ticket.displayId.toLowerCase()}-login`, authorName: 'octocat', provider: 'github', repoFullName: REPO }),
    ]);
  });

  it('links by the title when the branch names no ticket, and leaves ticketId null when nothing resolves', async () => {
    await github('pull_request', prPayload(102, { branch: 'fix-login', title: `${ticket.displayId}: fix login` }));
    expect((await prRecord(102))!.ticketId).toBe(ticket.id);
    await github('pull_request', prPayload(103, { branch: 'chore/deps', title: 'Bump deps (NOPE-99999)' }));
    const unlinked = (await prRecord(103))!;
    expect(unlinked.ticketId).toBeUndefined();
    const [opened] = await eventsOf(unlinked.prId, 1);
    expect(opened!.data).toMatchObject({ ticketId: null, boardId: null });
    // Not on a word boundary: no link.
    await github('pull_request', prPayload(104, { branch: `x${ticket.displayId}0`, title: 'Nothing' }));
    expect((await prRecord(104))!.ticketId).toBeUndefined();
  });

  it('fires pr.opened exactly once when the same hook is delivered twice and when ten hooks race', async () => {
    const delivery = randomUUID();
    const first = await github('pull_request', prPayload(110), { delivery });
    const again = await github('pull_request', prPayload(110), { delivery });
    expect(first.body.outcome).toBe('recorded');
    expect(again.body.outcome).toBe('duplicate');
    const racing = await Promise.all(Array.from({ length: 10 }, () => github('pull_request', prPayload(111))));
    expect(racing.map((response) => response.status)).toEqual(Array(10).fill(200));
    for (const number of [110, 111]) {
      const pr = (await prRecord(number))!;
      await new Promise((resolve) => setTimeout(resolve, 300));
      const events = await eventsOf(pr.prId, 1);
      expect(events.filter((event) => event.type === 'pr.opened')).toHaveLength(1);
      expect(events).toHaveLength(1);
    }
  });

  it('emits pr.status_changed for a review, a pipeline and a merge, pr.merged once, and pipeline.updated per new run status', async () => {
    await github('pull_request', prPayload(120, { branch: `${ticket.displayId}-work` }));
    await github('pull_request_review', { review: { state: 'approved' }, ...prPayload(120, { branch: `${ticket.displayId}-work` }) });
    const suite = (status: string, conclusion: string | null) => ({
      check_suite: { id: 9001, head_branch: `${ticket.displayId}-work`, status, conclusion, pull_requests: [{ number: 120 }] },
      repository: { full_name: REPO },
    });
    await github('check_suite', suite('in_progress', null));
    await github('check_suite', suite('completed', 'success'));
    await github('check_suite', suite('completed', 'success'));
    await github('pull_request', prPayload(120, { branch: `${ticket.displayId}-work`, state: 'closed', merged: true }, 'closed'));
    await github('pull_request', prPayload(120, { branch: `${ticket.displayId}-work`, state: 'closed', merged: true }, 'closed'));

    const pr = (await prRecord(120))!;
    expect(pr).toMatchObject({ state: 'merged', reviewStatus: 'approved', pipelineStatus: 'success' });
    const events = await eventsOf(pr.prId, 6);
    expect(events.map((event) => [event.type, event.data.state, event.data.reviewStatus, event.data.pipelineStatus])).toEqual([
      ['pr.opened', 'open', null, null],
      ['pr.status_changed', 'open', 'approved', null],
      ['pr.status_changed', 'open', 'approved', 'running'],
      ['pr.status_changed', 'open', 'approved', 'success'],
      ['pr.status_changed', 'merged', 'approved', 'success'],
      ['pr.merged', 'merged', 'approved', 'success'],
    ]);
    const pipeline = (await db().entities.pipeline.get({ orgId: setup.org.orgId, provider: 'github', repoFullName: REPO, providerPipelineId: 'check_suite:9001' }).go()).data!;
    const runs = await eventsOf(pipeline.pipelineId, 2);
    expect(runs.map((event) => event.data.status)).toEqual(['running', 'success']);
    expect(runs[1]!.data).toEqual({
      pipelineId: pipeline.pipelineId,
      boardId: setup.boardId,
      provider: 'github',
      repositoryFullName: REPO,
      providerPipelineId: 'check_suite:9001',
      ref: `${ticket.displayId}-work`,
      status: 'success',
      webUrl: null,
      pullRequestId: pr.prId,
    });
  });

  it('marks an agent-authored pull request for human review when the policy says so, and counts it in the overview', async () => {
    const agent = await createAgent(setup.org, { settings: { gitIdentity: 'Robo-Dev' } });
    await setup.org.call('PATCH', `/api/v1/organizations/${setup.org.orgId}/agents/policies`, { body: { prsRequireHumanReview: true } });
    await github('pull_request', prPayload(130, { login: 'robo-dev' }));
    expect((await prRecord(130))!).toMatchObject({ requiresHumanReview: true, agentId: agent.id });
    await setup.org.call('PATCH', `/api/v1/organizations/${setup.org.orgId}/agents/policies`, { body: { prsRequireHumanReview: false } });
    await github('pull_request', prPayload(131, { login: 'robo-dev' }));
    await github('pull_request', prPayload(132, { login: 'someone-else' }));
    expect((await prRecord(131))!.requiresHumanReview).toBe(false);
    expect((await prRecord(132))!.agentId).toBeUndefined();
    const overview = await setup.org.call('GET', `/api/v1/organizations/${setup.org.orgId}/agents/overview`);
    const row = overview.body.agents.find((entry: any) => entry.id === agent.id);
    expect(row.pullRequests).toEqual({ total: 2, requiresHumanReview: 1 });
  });

  it('refuses a missing or wrong signature with 401 and records nothing', async () => {
    expect((await github('pull_request', prPayload(140), { signature: null })).status).toBe(401);
    expect((await github('pull_request', prPayload(140), { signature: `sha256=${'0'.repeat(64)}` })).status).toBe(401);
    expect((await github('pull_request', prPayload(140), { secret: 'not-the-secret' })).status).toBe(401);
    const elsewhere = await api('POST', '/api/v1/integrations/github/events', { org: 'no-such-org', rawBody: '{}', headers: { 'x-github-event': 'ping' } });
    expect(elsewhere.status).toBe(401);
    expect(await prRecord(140)).toBeNull();
  });

  it('refuses a body that is not JSON, or lacks the fields read, with 400 and records nothing', async () => {
    const notJson = await github('pull_request', 'not json');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('VALIDATION_ERROR');
    const { pull_request, ...rest } = prPayload(141);
    const missing = await github('pull_request', { ...rest, pull_request: { ...pull_request, number: undefined } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.issues.map((issue: any) => issue.path)).toContain('pull_request.number');
    expect((await github('pull_request', { repository: { full_name: REPO } })).status).toBe(400);
    expect(await prRecord(141)).toBeNull();
  });
});

describe('GitLab hooks', () => {
  const mr = (iid: number, state = 'opened', action = 'open') => ({
    object_kind: 'merge_request',
    user: { username: 'tanuki' },
    project: { path_with_namespace: 'acme/api', web_url: 'https://gitlab.com/acme/api' },
    object_attributes: { iid, title: `${ticket.displayId} api change`, url: `https://gitlab.com/acme/api/-/merge_requests/${iid}`, state, source_branch: 'api-change', action },
  });

  it('records merge requests and pipelines verified by X-Gitlab-Token', async () => {
    expect((await gitlab('Merge Request Hook', mr(7))).body).toEqual({ event: 'Merge Request Hook', outcome: 'recorded' });
    const pr = (await prRecord(7, 'gitlab', 'acme/api'))!;
    expect(pr).toMatchObject({ ticketId: ticket.id, state: 'open', authorName: 'tanuki' });
    await gitlab('Pipeline Hook', { object_kind: 'pipeline', project: { path_with_namespace: 'acme/api', web_url: 'https://gitlab.com/acme/api' }, object_attributes: { id: 55, ref: 'api-change', status: 'failed' }, merge_request: { iid: 7 } });
    await gitlab('Merge Request Hook', mr(7, 'merged', 'merge'));
    const events = await eventsOf(pr.prId, 4);
    expect(events.map((event) => [event.type, event.data.state, event.data.pipelineStatus])).toEqual([
      ['pr.opened', 'open', null],
      ['pr.status_changed', 'open', 'failed'],
      ['pr.status_changed', 'merged', 'failed'],
      ['pr.merged', 'merged', 'failed'],
    ]);
    const pipeline = (await db().entities.pipeline.get({ orgId: setup.org.orgId, provider: 'gitlab', repoFullName: 'acme/api', providerPipelineId: '55' }).go()).data!;
    const [updated] = await eventsOf(pipeline.pipelineId, 1);
    expect(updated!.data).toMatchObject({ status: 'failed', webUrl: 'https://gitlab.com/acme/api/-/pipelines/55', pullRequestId: pr.prId });
  });

  it('refuses a missing or wrong token with 401 and records nothing', async () => {
    expect((await gitlab('Merge Request Hook', mr(8), 'wrong')).status).toBe(401);
    expect((await gitlab('Merge Request Hook', mr(8), '')).status).toBe(401);
    expect(await prRecord(8, 'gitlab', 'acme/api')).toBeNull();
  });
});
