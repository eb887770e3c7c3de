#!/usr/bin/env node
/**
 * A complete agent loop against the work-management REST API, in plain Node (18+) with its
 * built-in fetch and no dependencies:
 *
 *   1. claim the next ready     POST /api/v1/claims/next              (atomic; 204: nothing ready)
 *      ticket, reading where the last holder stopped (its `handoff`)
 *   2. work, heartbeating       POST …/tickets/{id}/claim/heartbeat  (every third of the lease,
 *                                                                     with a progress note)
 *      and obeying what people ask in the heartbeat's answer: `directive` stop (release at once,
 *      with a handoff), pause (keep heartbeating, do no work) or resume; `messages` (read them)
 *   3. move it to review        PATCH …/tickets/{id}/status           (with a reason)
 *   4. release the claim        DELETE …/tickets/{id}/claim           (with a handoff)
 *   Every write names the lease it is made under (X-Claim-Count): once the lease is not ours any
 *   more, the write is refused and changes nothing.
 *
 * Configuration (environment):
 *   WMS_BASE_URL        the organization's API origin, e.g. https://acme.api.example.com
 *                       (default http://localhost:$PORT, the local runtime: PORT as for
 *                       `npm start`, 3000 when unset)
 *   WMS_ORG             the organization's slug, sent as X-Organization; needed only where the
 *                       origin is not the organization's own subdomain (e.g. localhost)
 *   WMS_TOKEN           the agent's token (wma_…), required
 *   LEASE_SECONDS       lease length asked for (the service clamps it to 60–14400; default 900)
 *   HEARTBEAT_SECONDS   pause between heartbeats (default: a third of the lease)
 *   WORK_SECONDS        how long the pretend work takes (default 5)
 *   REVIEW_STATUS_KEY   the status key to hand tickets over in (default IN_REVIEW)
 *   MAX_TICKETS         how many tickets to work through before stopping (default 1)
 *
 * Run: WMS_BASE_URL=http://localhost:3000 WMS_ORG=acme WMS_TOKEN=wma_… node examples/agent-loop.mjs
 * Replace `doTheWork` with what your agent actually does.
 */

const BASE_URL = (process.env.WMS_BASE_URL ?? `http://localhost:${process.env.PORT || 3000}`).replace(/\/+$/, '');
const ORG = process.env.WMS_ORG;
const TOKEN = process.env.WMS_TOKEN;
const LEASE_SECONDS = Number(process.env.LEASE_SECONDS ?? 900);
const HEARTBEAT_SECONDS = Number(process.env.HEARTBEAT_SECONDS ?? LEASE_SECONDS / 3);
const WORK_SECONDS = Number(process.env.WORK_SECONDS ?? 5);
const REVIEW_STATUS_KEY = process.env.REVIEW_STATUS_KEY ?? 'IN_REVIEW';
const MAX_TICKETS = Number(process.env.MAX_TICKETS ?? 1);

if (!TOKEN) {
  console.error('Set WMS_TOKEN to the agent token (and WMS_ORG to the organization slug when running locally).');
  process.exit(2);
}

const log = (message, fields = {}) => console.log(JSON.stringify({ at: new Date().toISOString(), message, ...fields }));

/** An error answer of the API: `code` is the stable error code (docs/design/errors.md), `details` its data. */
class ApiError extends Error {
  constructor(status, error) {
    super(`${status} ${error?.code}: ${error?.message}`);
    this.status = status;
    this.code = error?.code;
    this.details = error?.details ?? {};
  }
}

/** The service could not be reached at all: says where it looked and why. */
class UnreachableError extends Error {
  constructor(url, cause) {
    const reason = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? 'unknown error';
    super(`Could not reach ${url} (${reason}). Is the service running there? Set WMS_BASE_URL (or PORT for a local one).`);
    this.code = 'UNREACHABLE';
  }
}

/** One API call: JSON in, JSON out (undefined for 204), errors thrown as ApiError (or UnreachableError). */
async function api(method, path, body, headers = {}) {
  const url = `${BASE_URL}${path}`;
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(ORG ? { 'x-organization': ORG } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  }).catch((error) => {
    throw new UnreachableError(url, error);
  });
  const text = await response.text();
  const payload = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, payload?.error);
  // 204: nothing to do; `X-Dispatch-Paused` says when a person paused dispatch (organization, agent, board, budget).
  if (response.status === 204) return { empty: true, dispatchPaused: response.headers.get('x-dispatch-paused') };
  return payload;
}

const ticketPath = (ticket) => `/api/v1/boards/${ticket.boardId}/tickets/${ticket.id}`;

/**
 * Stand-in for the agent's real work: WORK_SECONDS of work, done in small steps so that it can
 * wait while paused and give up when the lease is lost or a stop was asked for (`signal`).
 */
async function doTheWork(ticket, signal, control) {
  log('working', { ticket: ticket.displayId, title: ticket.title });
  let worked = 0;
  while (worked < WORK_SECONDS * 1000) {
    if (signal.aborted) throw new Error(signal.reason ?? 'lease lost');
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (!control.paused) worked += 100;
  }
  return `Done: ${ticket.title}`;
}

/**
 * Claims the most urgent ready ticket in one of `statusIds` (never one in review), or answers
 * null when nothing is ready. Stops the loop at the agent's claim limit.
 */
async function claimNext(statusIds) {
  try {
    const claimed = await api('POST', '/api/v1/claims/next', { leaseSeconds: LEASE_SECONDS, statusIds });
    if (claimed.empty) {
      if (claimed.dispatchPaused) log('dispatch paused', { scope: claimed.dispatchPaused });
      return null;
    }
    const ticket = claimed.ticket;
    log('claimed', { ticket: ticket.displayId, claimExpiresAt: claimed.claim.claimExpiresAt, claimCount: claimed.claim.claimCount, handoff: claimed.handoff?.summary ?? claimed.handoff?.lastNote ?? null });
    return { ticket, fence: { 'x-claim-count': String(claimed.claim.claimCount) } };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'CLAIM_LIMIT_REACHED') {
      log('holding the maximum of claims; finish or release one first', error.details);
    }
    throw error;
  }
}

/** Works one claimed ticket to review, heartbeating and obeying directives meanwhile; always hands the lease back. */
async function workOn({ ticket, fence }, review) {
  const lost = new AbortController();
  const control = { paused: false, stop: null };
  const heartbeat = setInterval(async () => {
    try {
      const renewed = await api('POST', `${ticketPath(ticket)}/claim/heartbeat`, { extendSeconds: LEASE_SECONDS, note: `working on ${ticket.displayId}` }, fence);
      log('heartbeat', { ticket: ticket.displayId, claimExpiresAt: renewed.claimExpiresAt });
      for (const message of renewed.messages) log('message', { ticket: ticket.displayId, from: message.from.name, text: message.text });
      const directive = renewed.directive;
      if (directive?.action === 'stop' && !control.stop) {
        control.stop = directive;
        log('stop requested', { ticket: ticket.displayId, by: directive.requestedBy.name, says: directive.message });
        lost.abort('stopped');
      } else if (directive?.action === 'pause' && !control.paused) {
        control.paused = true;
        log('paused', { ticket: ticket.displayId, by: directive.requestedBy.name, says: directive.message });
      } else if (directive?.action !== 'pause' && control.paused) {
        control.paused = false;
        log('resumed', { ticket: ticket.displayId });
      }
    } catch (error) {
      // CLAIM_NOT_HELD (lapsed) or CLAIM_SUPERSEDED (someone took it over): stop working.
      log('lease lost', { ticket: ticket.displayId, code: error.code });
      lost.abort('lease lost');
    }
  }, HEARTBEAT_SECONDS * 1000);
  let outcome = 'gave up';
  let handoff = null;
  try {
    const summary = await doTheWork(ticket, lost.signal, control);
    try {
      await api('PATCH', `${ticketPath(ticket)}/status`, { statusId: review.id, reason: summary }, fence);
      outcome = 'moved to review';
      log('moved to review', { ticket: ticket.displayId, status: review.name });
    } catch (error) {
      // The organization may gate this status for agents: a person decides (spec: AGENT_APPROVAL_REQUIRED).
      if (!(error instanceof ApiError && error.code === 'AGENT_APPROVAL_REQUIRED')) throw error;
      outcome = 'review awaits approval';
      log('a person must approve this move', { ticket: ticket.displayId, suggestionId: error.details.suggestionId ?? null });
    }
  } catch (error) {
    if (!control.stop) throw error;
    // Asked to stop: hand the lease back at once, saying where the work stands.
    outcome = 'stopped';
    handoff = { summary: `Stopped at ${control.stop.requestedBy.name}'s request${control.stop.message ? ` (${control.stop.message})` : ''}; the work was not finished`, nextSteps: 'Read the request, then start again' };
  } finally {
    clearInterval(heartbeat);
    if (!lost.signal.aborted || control.stop) {
      await api('DELETE', `${ticketPath(ticket)}/claim`, { reason: outcome, handoff: handoff ?? { summary: `${outcome}: ${ticket.title}` } }, fence);
      log('released', { ticket: ticket.displayId, reason: outcome });
    }
  }
}

async function main() {
  const statuses = (await api('GET', '/api/v1/statuses')).data;
  const review = statuses.find((status) => status.key === REVIEW_STATUS_KEY);
  if (!review) throw new Error(`No status with key ${REVIEW_STATUS_KEY}`);
  // Work waits in the ACTIVE statuses; tickets already in review (or BLOCKED) are not ours to take.
  const workStatuses = statuses.filter((status) => status.category === 'ACTIVE' && status.key !== 'BLOCKED' && status.id !== review.id).map((status) => status.id);
  let done = 0;
  while (done < MAX_TICKETS) {
    const claimed = await claimNext(workStatuses);
    if (!claimed) {
      log('no ready work left');
      break;
    }
    await workOn(claimed, review);
    done += 1;
  }
  log('finished', { tickets: done });
}

main().catch((error) => {
  log('stopped', { error: error.message, code: error.code ?? null });
  process.exit(1);
});
