import * as z from 'zod';
import { operation } from '../core/operation.js';
import { idParam } from '../core/fields.js';
import { PRIORITIES } from '../db/entities/index.js';
import { createTicketInput, handoffBody, heartbeatNote, leaseSeconds, patchTicketInput, reason, usage } from './inputs.js';
import { reportFields } from './claims/reports.js';
import { SEARCH_INDEX_JOB } from './search/pending.js';
import { READINESS_JOB } from './record/readiness.js';

/*
 * The tickets domain's operations (lib/core/operation.ts): what REST routes (lib/tickets/http)
 * and MCP tools (lib/mcp/tools.ts) offer, declared once. A ticket write emits `ticket.updated`,
 * and `ticket.status_changed` or `ticket.assigned` when it changes those (lib/tickets/events.ts),
 * and enqueues the jobs that index its words and carry its readiness to other tickets; one
 * that finishes or reopens a ticket recounts its dependents before it answers, so their
 * `ticket.unblocked` is written by the same request. A write that finds the ticket's last lease
 * lapsed and unswept ends it first (`ticket.claim_expired`, and `ticket.quarantined` when that
 * lapse was one too many).
 */

const WRITE = ['ticket.updated', 'ticket.status_changed', 'ticket.assigned', 'ticket.unblocked', 'ticket.claim_expired', 'ticket.quarantined'];
/** The jobs of a ticket write: its words indexed, its readiness carried to its dependents and parents. */
const JOBS = [SEARCH_INDEX_JOB.name, READINESS_JOB.name];
const CLAIM = ['ticket.claimed', ...WRITE];
const RELEASE = ['ticket.claim_released', ...WRITE];
const ids = () => z.array(idParam).max(100, 'At most 100');

export const createTicketOp = /* @__PURE__ */ operation({
  name: 'tickets.create',
  scope: 'write',
  target: 'board',
  fenced: false,
  idempotent: false,
  errors: ['AGENT_APPROVAL_REQUIRED', 'FEATURE_DISABLED'],
  emits: ['ticket.created'],
  jobs: [SEARCH_INDEX_JOB.name],
  input: createTicketInput,
});

export const getTicketOp = /* @__PURE__ */ operation({ name: 'tickets.get', scope: 'read', target: 'ticket', fenced: false, idempotent: true, errors: [], emits: [] });

/** The ticket lists across boards (GET /api/v1/issues; MCP's tickets_list and tickets_search): filters are read per interface, by one list function. */
export const listTicketsOp = /* @__PURE__ */ operation({ name: 'tickets.list', scope: 'read', fenced: false, idempotent: true, errors: [], emits: [] });

export const updateTicketOp = /* @__PURE__ */ operation({
  name: 'tickets.update',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: true,
  errors: ['AGENT_APPROVAL_REQUIRED', 'FEATURE_DISABLED', 'STALE_UPDATE'],
  emits: RELEASE,
  jobs: JOBS,
  input: patchTicketInput,
});

export const changeStatusOp = /* @__PURE__ */ operation({
  name: 'tickets.changeStatus',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: true,
  errors: ['AGENT_APPROVAL_REQUIRED'],
  emits: RELEASE,
  jobs: JOBS,
  input: () => z.object({ statusId: idParam, reason: reason.optional() }),
});

export const claimNextOp = /* @__PURE__ */ operation({
  name: 'tickets.claimNext',
  scope: 'write',
  fenced: false,
  idempotent: false,
  errors: ['CLAIM_LIMIT_REACHED'],
  emits: CLAIM,
  jobs: JOBS,
  input: () =>
    z.object({
      leaseSeconds: leaseSeconds.optional(),
      assign: z.boolean().optional(),
      boardIds: ids().optional(),
      statusIds: ids().optional().meta({ description: 'Only tickets in these statuses (e.g. In Progress, not In Review)' }),
      labelIds: ids().optional(),
      typeIds: ids().optional(),
      priorities: z.array(z.enum(PRIORITIES)).max(4).optional(),
    }),
});

export const claimTicketOp = /* @__PURE__ */ operation({
  name: 'tickets.claim',
  scope: 'write',
  target: 'ticket',
  fenced: false,
  idempotent: true,
  errors: ['CLAIM_LIMIT_REACHED', 'BUDGET_EXHAUSTED', 'TICKET_ALREADY_CLAIMED', 'TICKET_NOT_CLAIMABLE', 'DISPATCH_PAUSED', 'TICKET_QUARANTINED'],
  emits: CLAIM,
  jobs: JOBS,
  input: () => z.object({ leaseSeconds: leaseSeconds.optional(), assign: z.boolean().optional().meta({ description: 'Also assign it to you' }) }),
});

export const heartbeatOp = /* @__PURE__ */ operation({
  name: 'tickets.heartbeat',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: true,
  errors: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'],
  emits: ['budget.warning', ...WRITE],
  jobs: JOBS,
  input: () => z.object({ extendSeconds: leaseSeconds.optional(), note: heartbeatNote.optional(), usage: usage.optional() }),
});

export const releaseClaimOp = /* @__PURE__ */ operation({
  name: 'tickets.release',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: false,
  errors: ['TICKET_ALREADY_CLAIMED', 'CLAIM_NOT_HELD'],
  emits: RELEASE,
  jobs: JOBS,
  input: () => z.object({ reason: reason.optional(), handoff: handoffBody.optional() }),
});

export const reportRunOp = /* @__PURE__ */ operation({
  name: 'tickets.report',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: false,
  errors: ['CLAIM_NOT_HELD'],
  emits: ['ticket.reported', 'budget.warning', ...RELEASE],
  jobs: JOBS,
  input: () => z.object(reportFields()),
});

/** Accepting (the ticket moves) or rejecting an agent's suggested move: one declaration for both decisions. */
export const decideSuggestionOp = /* @__PURE__ */ operation({
  name: 'tickets.decideSuggestion',
  scope: 'write',
  target: 'ticket',
  fenced: true,
  idempotent: false,
  errors: [],
  emits: RELEASE,
  jobs: JOBS,
  input: () => z.object({ reason: reason.optional() }),
});

export const pendingSuggestionsOp = /* @__PURE__ */ operation({ name: 'tickets.pendingSuggestions', scope: 'read', fenced: false, idempotent: true, errors: ['FORBIDDEN'], emits: [] });
