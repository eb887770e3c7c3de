import { createHmac } from 'node:crypto';
import { inject } from 'vitest';
import { api } from '../../support/api.js';
import type { OrgFixture } from '../../support/fixtures.js';
import { codeFor, createGrant, oauthFetch, pkcePair } from '../../support/oauth.js';
import { call, freshIp, freshTicket, oauthHost, pageCall, post, statusId, suffix, suggested, type Probe } from '../../support/round-trips.js';

/**
 * Ticket routes. Reads of the ticket (one BatchGetItem of board + ticket) run in parallel with
 * the organization's configuration Query, so most single-ticket routes are auth + 2 parallel
 * reads + 1 transaction (3 sequential steps).
 */
export function ticketProbes(): Record<string, Probe> {
  const t = '/api/v1/boards/{boardId}/tickets';
  const onTicket = (org: OrgFixture, ticketId: string, suffixPath: string) => `/api/v1/boards/${org.boardId}/tickets/${ticketId}${suffixPath}`;
  return {
    [`GET ${t}`]: { budget: 5, run: call(`GET ${t}`) },
    // auth; board ∥ configuration; the board's counter (only once every check passed); the transaction.
    [`POST ${t}`]: { budget: 5, run: call(`POST ${t}`, { title: 'Budget ticket' }) },
    [`GET ${t}/{ticketId}`]: { budget: 3, run: call(`GET ${t}/{ticketId}`) },
    [`PATCH ${t}/{ticketId}`]: { budget: 4, run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, ''), { body: { priority: 'high' } }) },
    // As a write, and the Query of the tickets that wait for it (their readiness is recounted before the answer).
    [`DELETE ${t}/{ticketId}`]: { budget: 5, run: async (org) => org.call('DELETE', onTicket(org, (await freshTicket(org)).id, '')) },
    [`PATCH ${t}/{ticketId}/status`]: {
      budget: 4,
      run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, '/status'), { body: { statusId: statusId(org, 2), reason: 'Started' } }),
    },
    [`PATCH ${t}/{ticketId}/assign`]: {
      budget: 5,
      run: async (org) => org.call('PATCH', onTicket(org, (await freshTicket(org)).id, '/assign'), { body: { assigneeId: org.memberId } }),
    },
    [`POST ${t}/{ticketId}/move`]: {
      budget: 5,
      run: async (org) => {
        const target = await post(org, '/api/v1/boards', { name: `Target ${suffix()}` });
        return org.call('POST', onTicket(org, (await freshTicket(org)).id, '/move'), { body: { targetBoardId: target.id } });
      },
    },
    [`POST ${t}/{ticketId}/transition`]: {
      budget: 4,
      run: async (org) => org.call('POST', onTicket(org, (await freshTicket(org)).id, '/transition'), { body: { toStatusId: statusId(org, 1), reason: 'Go' } }),
    },
    [`POST ${t}/{ticketId}/approve`]: { budget: 4, run: async (org) => org.call('POST', onTicket(org, (await freshTicket(org)).id, '/approve')) },
    [`GET ${t}/needing-reassignment`]: { budget: 5, atMost: true, run: call(`GET ${t}/needing-reassignment`) },
    [`PATCH ${t}/reorder`]: {
      budget: 4,
      run: async (org) => org.call('PATCH', `/api/v1/boards/${org.boardId}/tickets/reorder`, { body: { ticketId: (await freshTicket(org)).id, position: 1.5 } }),
    },
    [`PATCH ${t}/{ticketId}/inline`]: {
      budget: 4,
      run: async (org) => {
        const ticket = await freshTicket(org);
        return org.call('PATCH', onTicket(org, ticket.id, '/inline'), { body: { title: 'Inline', expectedUpdatedAt: ticket.updatedAt } });
      },
    },
    [`PUT ${t}/{ticketId}/custom-fields`]: {
      budget: 4,
      run: (org) => org.call('PUT', onTicket(org, org.ticketId, '/custom-fields'), { body: { values: [{ customFieldId: org.customFieldId, value: 'v' }] } }),
    },
    [`GET ${t}/{ticketId}/completion-check`]: { budget: 3, run: call(`GET ${t}/{ticketId}/completion-check`) },
    // Auth, board and ticket ∥ configuration ∥ its dependencies, then the blocking tickets (the fixture ticket waits for one).
    [`GET ${t}/{ticketId}/blocker`]: { budget: 5, run: call(`GET ${t}/{ticketId}/blocker`) },
    // auth; the ticket; its pull requests (one Query on gsi1).
    [`GET ${t}/{ticketId}/pull-requests`]: { budget: 3, run: call(`GET ${t}/{ticketId}/pull-requests`) },
    [`GET ${t}/{ticketId}/subtickets`]: { budget: 4, run: call(`GET ${t}/{ticketId}/subtickets`) },
    // The parent is read first, then the create path (counter ∥ configuration, transaction).
    [`POST ${t}/{ticketId}/subtickets`]: { budget: 5, run: call(`POST ${t}/{ticketId}/subtickets`, { title: 'Budget subticket' }) },
    [`PATCH ${t}/{ticketId}/subtickets/{subticketId}/status`]: {
      budget: 4,
      run: (org) => org.call('PATCH', onTicket(org, org.ticketId, `/subtickets/${org.subticketId}/status`), { body: { statusId: statusId(org, 3) } }),
    },
    [`POST ${t}/{ticketId}/convert-to-subticket`]: {
      budget: 4,
      run: async (org) => {
        const parent = await freshTicket(org);
        return org.call('POST', onTicket(org, (await freshTicket(org)).id, '/convert-to-subticket'), { body: { parentTicketId: parent.id } });
      },
    },
    [`POST ${t}/{ticketId}/promote-to-standalone`]: {
      budget: 5,
      run: async (org) => {
        const parent = await freshTicket(org);
        const child = (await post(org, `/api/v1/boards/${org.boardId}/tickets/${parent.id}/subtickets`, { title: 'Child' })).data;
        return org.call('POST', onTicket(org, child.id, '/promote-to-standalone'));
      },
    },
    // auth; the ticket (with its board) ∥ the entries up to the page's end ∥ their COUNT ∥ configuration.
    [`GET ${t}/{ticketId}/timeline`]: { budget: 5, run: call(`GET ${t}/{ticketId}/timeline`) },
    // Suggestions: auth; ticket (BatchGetItem) ∥ the ticket's suggestions ∥ configuration; accept/reject add one write.
    [`GET ${t}/{ticketId}/suggestions`]: { budget: 4, run: call(`GET ${t}/{ticketId}/suggestions`) },
    [`POST ${t}/{ticketId}/suggestions/{suggestionId}/accept`]: {
      budget: 4,
      run: async (org) => {
        const { ticketId, suggestionId } = await suggested(org);
        return org.call('POST', onTicket(org, ticketId, `/suggestions/${suggestionId}/accept`), { body: {} });
      },
    },
    [`POST ${t}/{ticketId}/suggestions/{suggestionId}/reject`]: {
      budget: 4,
      run: async (org) => {
        const { ticketId, suggestionId } = await suggested(org);
        return org.call('POST', onTicket(org, ticketId, `/suggestions/${suggestionId}/reject`), { body: { reason: 'Not yet' } });
      },
    },
    [`GET ${t}/{ticketId}/comments`]: { budget: 3, run: call(`GET ${t}/{ticketId}/comments`) },
    [`POST ${t}/{ticketId}/comments`]: { budget: 3, run: call(`POST ${t}/{ticketId}/comments`, { content: 'Budget comment' }) },
    [`GET ${t}/{ticketId}/comments/{commentId}`]: { budget: 2, run: call(`GET ${t}/{ticketId}/comments/{commentId}`) },
    [`PATCH ${t}/{ticketId}/comments/{commentId}`]: { budget: 3, run: call(`PATCH ${t}/{ticketId}/comments/{commentId}`, { content: 'Edited' }) },
    [`DELETE ${t}/{ticketId}/comments/{commentId}`]: {
      budget: 3,
      run: async (org) => {
        const comment = (await post(org, `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}/comments`, { content: 'Doomed' })).data;
        return org.call('DELETE', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}/comments/${comment.id}`);
      },
    },
    // One board Query per board the caller may see (the fixture admin sees a handful).
    'GET /api/v1/issues': { budget: 12, atMost: true, run: call('GET /api/v1/issues') },
    'GET /api/v1/labels': { budget: 2, run: call('GET /api/v1/labels') },
    'POST /api/v1/labels': { budget: 3, run: (org) => org.call('POST', '/api/v1/labels', { body: { name: `Budget ${suffix()}`, color: '#000000' } }) },
    'PATCH /api/v1/labels/{labelId}': { budget: 3, run: call('PATCH /api/v1/labels/{labelId}', { color: '#445566' }) },
    // auth; the label (its name); one transaction (delete + name guard).
    'GET /api/v1/webhook-endpoints': { budget: 2, run: (org) => org.call('GET', '/api/v1/webhook-endpoints') },
    'POST /api/v1/webhook-endpoints': {
      budget: 2,
      run: (org) => org.call('POST', '/api/v1/webhook-endpoints', { body: { name: `Probe ${suffix()}`, url: 'https://hooks.example.com/budget', events: ['ticket.created'] } }),
    },
    'GET /api/v1/webhook-endpoints/{endpointId}': { budget: 2, run: (org) => org.call('GET', `/api/v1/webhook-endpoints/${org.endpointId}`) },
    'PATCH /api/v1/webhook-endpoints/{endpointId}': { budget: 3, run: (org) => org.call('PATCH', `/api/v1/webhook-endpoints/${org.endpointId}`, { body: { name: `Renamed ${suffix()}` } }) },
    'DELETE /api/v1/webhook-endpoints/{endpointId}': {
      budget: 3,
      run: async (org) =>
        org.call('DELETE', `/api/v1/webhook-endpoints/${(await post(org, '/api/v1/webhook-endpoints', { name: `Doomed ${suffix()}`, url: 'https://hooks.example.com/doomed', events: ['ticket.created'] })).id}`),
    },
    // auth; the endpoint; the ping's delivery record (then one SQS message).
    'POST /api/v1/webhook-endpoints/{endpointId}/ping': { budget: 3, run: (org) => org.call('POST', `/api/v1/webhook-endpoints/${org.endpointId}/ping`) },
    // auth; the endpoint and its attempts (one Query), in parallel.
    'GET /api/v1/webhook-endpoints/{endpointId}/deliveries': { budget: 3, run: (org) => org.call('GET', `/api/v1/webhook-endpoints/${org.endpointId}/deliveries`) },
    // auth; the endpoint and the delivery, in parallel; the new delivery's record.
    'POST /api/v1/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver': {
      budget: 4,
      run: (org) => org.call('POST', `/api/v1/webhook-endpoints/${org.endpointId}/deliveries/${org.deliveryId}/redeliver`),
    },
    // auth; the integration.
    'GET /api/v1/integrations/{provider}': {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', '/api/v1/integrations/gitlab');
        return org.call('GET', '/api/v1/integrations/gitlab');
      },
    },
    // auth; one upsert (createdAt kept on a replacement).
    'PUT /api/v1/integrations/{provider}': { budget: 2, run: (org) => org.call('PUT', '/api/v1/integrations/github') },
    'DELETE /api/v1/integrations/{provider}': {
      budget: 2,
      run: async (org) => {
        await org.call('PUT', '/api/v1/integrations/gitlab');
        return org.call('DELETE', '/api/v1/integrations/gitlab');
      },
    },
    // A new pull request linked by its branch: the slug; the organization and the integration;
    // the delivery id's claim; the pull request; the ticket key, then the ticket, beside the
    // agents' git identities; one transaction (the record and pr.opened).
    'POST /api/v1/integrations/github/events': {
      budget: 9,
      run: async (org) => {
        const secret = (await org.call('PUT', '/api/v1/integrations/github')).body.secret as string;
        const ticket = (await org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}`)).body.data;
        const body = JSON.stringify({
          pull_request: { number: Math.floor(Math.random() * 1e9), title: 'Budget', html_url: 'https://github.com/a/b/pull/1', state: 'open', head: { ref: `${ticket.displayId}-budget` }, user: { login: 'someone' } },
          repository: { full_name: 'a/b' },
        });
        return api('POST', '/api/v1/integrations/github/events', {
          org: org.slug,
          rawBody: body,
          headers: { 'x-github-event': 'pull_request', 'x-github-delivery': suffix(), 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
        });
      },
    },
    'POST /api/v1/integrations/gitlab/events': {
      budget: 9,
      run: async (org) => {
        const token = (await org.call('PUT', '/api/v1/integrations/gitlab')).body.secret as string;
        const ticket = (await org.call('GET', `/api/v1/boards/${org.boardId}/tickets/${org.ticketId}`)).body.data;
        const body = JSON.stringify({
          user: { username: 'someone' },
          project: { path_with_namespace: 'a/b' },
          object_attributes: { iid: Math.floor(Math.random() * 1e9), title: 'Budget', url: 'https://gitlab.com/a/b/-/merge_requests/1', state: 'opened', source_branch: `${ticket.displayId}-budget` },
        });
        return api('POST', '/api/v1/integrations/gitlab/events', {
          org: org.slug,
          rawBody: body,
          headers: { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': suffix(), 'x-gitlab-token': token },
        });
      },
    },
    // The organization's slug (the Host names it); the documents are built from the origin.
    ...Object.fromEntries(
      ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/v1/mcp'].map((path) => [
        `GET ${path}`,
        { budget: 1, run: (org: OrgFixture) => api('GET', path, { headers: { host: `${org.slug}.localhost:${new URL(inject('baseUrl')).port}` } }) },
      ]),
    ),
    // The public key is derived from the function's configuration.
    'GET /.well-known/jwks.json': { budget: 0, run: () => api('GET', '/.well-known/jwks.json') },
    // Authentication; the registration with its rate window, one transaction; the window's count (for RateLimit).
    'POST /api/v1/oauth/register': {
      budget: 3,
      run: (org) => api('POST', '/api/v1/oauth/register', { token: org.adminToken, headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() }, body: { client_name: 'Budget', redirect_uris: ['https://budget.example.com/cb'] } }),
    },
    // The slug ∥ the caller's window; the client; the organization for the sign-in page.
    'GET /api/v1/oauth/authorize': {
      budget: 4,
      run: async (org) => {
        const { challenge } = await pkcePair();
        const query = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' });
        return pageCall(org, 'GET', `/api/v1/oauth/authorize?${query}`);
      },
    },
    // The slug ∥ the window; the sealed request is verified without a read; then login's six.
    'POST /api/v1/oauth/authorize/sign-in': {
      budget: 8,
      status: 303,
      run: async (org) => {
        const { challenge } = await pkcePair();
        const query = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' });
        const page = await pageCall(org, 'GET', `/api/v1/oauth/authorize?${query}`);
        const request = /name="request" value="([^"]+)"/.exec(page.text)![1]!;
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/sign-in', new URLSearchParams({ request, email: `admin@${org.slug}.test`, password: 'correct horse battery' }).toString());
      },
    },
    // The slug ∥ the window; the session; the client; the code.
    'POST /api/v1/oauth/authorize/consent': {
      budget: 5,
      status: 303,
      run: async (org) => {
        const fetch = oauthFetch();
        const origin = `http://${oauthHost(org)}`;
        const { challenge } = await pkcePair();
        const url = new URL(`${origin}/api/v1/oauth/authorize`);
        url.search = new URLSearchParams({ response_type: 'code', client_id: org.oauthClientId, redirect_uri: 'http://127.0.0.1/fixture-callback', code_challenge: challenge, code_challenge_method: 'S256' }).toString();
        const signedIn = await codeFor(fetch, origin, org.oauthClientId, 'http://127.0.0.1/fixture-callback', { email: `admin@${org.slug}.test`, password: 'correct horse battery' });
        const page = await fetch(url, { headers: { cookie: signedIn.cookie! } });
        const html = await page.text();
        const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/consent', new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision: 'allow' }).toString(), signedIn.cookie!);
      },
    },
    // The slug ∥ the window; the session (its record, then its user); its deletion ∥ the Query of the person's
    // console grants (one revocation more for each console grant that sign-in made: none here).
    'POST /api/v1/oauth/authorize/sign-out': {
      budget: 5,
      status: 204,
      run: async (org) => {
        const signedIn = await codeFor(oauthFetch(), `http://${oauthHost(org)}`, org.oauthClientId, 'http://127.0.0.1/fixture-callback', { email: `admin@${org.slug}.test`, password: 'correct horse battery' });
        return pageCall(org, 'POST', '/api/v1/oauth/authorize/sign-out', '', signedIn.cookie!);
      },
    },
    // The caller's window; the code beside the client; one transaction (code, grant, refresh token, access token, user check).
    'POST /api/v1/oauth/token': {
      budget: 3,
      run: async (org) => {
        const grant = await createGrant(org, inject('baseUrl'));
        return api('POST', '/api/v1/oauth/token', {
          headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() },
          body: { grant_type: 'refresh_token', refresh_token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret },
        });
      },
    },
    // The caller's window; the token's record with its client; the grant's revocation.
    'POST /api/v1/oauth/revoke': {
      budget: 3,
      run: async (org) => {
        const grant = await createGrant(org, inject('baseUrl'));
        return api('POST', '/api/v1/oauth/revoke', { headers: { host: oauthHost(org), 'x-forwarded-for': freshIp() }, body: { token: grant.refreshToken, client_id: grant.clientId, client_secret: grant.clientSecret } });
      },
    },
    // Authentication; the boards of the organization (tools/call boards_list; tools/list reads nothing).
    'POST /api/v1/mcp': {
      budget: 2,
      run: async (org) => {
        const response = await oauthFetch()(`http://${oauthHost(org)}/api/v1/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${org.adminToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boards_list', arguments: {} } }),
        });
        // A 2025-11-25 request is answered as a one-event stream.
        const body = await response.text();
        return { status: response.status, body, headers: response.headers, roundTrips: Number(response.headers.get('x-db-round-trips') ?? NaN) };
      },
    },
    // Authentication; the window; the person's grants of the client; their users and organizations.
    'GET /api/v1/oauth/me/organizations': { budget: 4, run: call('GET /api/v1/oauth/me/organizations') },
    // Authentication; the window; the user's grants ∥ the user.
    'GET /api/v1/oauth/grants': { budget: 4, run: call('GET /api/v1/oauth/grants') },
    // Authentication; the window; the grant; its revocation.
    'DELETE /api/v1/oauth/grants/{grantId}': {
      budget: 4,
      status: 204,
      run: async (org) => org.call('DELETE', `/api/v1/oauth/grants/${(await createGrant(org, inject('baseUrl'))).grantId}`),
    },
    'DELETE /api/v1/labels/{labelId}': {
      budget: 3,
      run: async (org) => org.call('DELETE', `/api/v1/labels/${(await post(org, '/api/v1/labels', { name: `Doomed ${suffix()}`, color: '#000000' })).id}`),
    },
    'GET /api/v1/custom-fields': { budget: 2, run: call('GET /api/v1/custom-fields') },
    'POST /api/v1/custom-fields': { budget: 3, run: (org) => org.call('POST', '/api/v1/custom-fields', { body: { name: `Budget ${suffix()}`, type: 'TEXT' } }) },
    'PATCH /api/v1/custom-fields/{customFieldId}': { budget: 3, run: call('PATCH /api/v1/custom-fields/{customFieldId}', { description: 'Changed' }) },
    'DELETE /api/v1/custom-fields/{customFieldId}': {
      budget: 3,
      run: async (org) => org.call('DELETE', `/api/v1/custom-fields/${(await post(org, '/api/v1/custom-fields', { name: `Doomed ${suffix()}`, type: 'TEXT' })).id}`),
    },
  };
}
