import * as z from 'zod';
import { type AppError, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { listBoards } from '../boards/index.js';
import { listStatuses } from '../statuses/index.js';
import {
  listIssues, createBoardTicket, getTicket, patchTicket, changeTicketStatus, REPORT_OUTCOMES, reportFields, reportRun, claimTicket, claimNext, heartbeatClaim, releaseClaim, locateTicket,
  handoffFields, heartbeatNote, runUsage, leaseSeconds as leaseLength, statusChangeReason, ticketDescription, ticketSearch, ticketTimestamp, ticketTitle, type Ticket,
  acceptSuggestion, listPendingSuggestions, rejectSuggestion,
} from '../tickets/index.js';
import { PRIORITIES } from '../db/entities/index.js';
import { commentContent, createComment, listComments } from '../comments/index.js';
import { createEntry, decideEntry, entryDescription, entryDurationMinutes, listEntries } from '../time/index.js';
import { calendarDate, idParam, requiredText } from '../core/fields.js';
import { groupDigits } from '../core/text.js';
import { getPage, searchSpace, searchWiki } from '../wiki/index.js';
import { INBOX_APP_URI } from './apps.js';
import { hasPermission } from '../organizations/index.js';

/**
 * The MCP tools: each a thin adapter over the domain functions the REST routes call, never a
 * second implementation. Every field a REST route also takes is read with the REST route's own
 * schema (the domains export them), so limits, defaults and clamping are the same on both; an
 * argument a tool does not declare is refused (lib/mcp/server.ts lists the schemas strict). Names, order and descriptions are stable (clients cache them); input
 * schemas are flat objects; results are compact and never exceed MAX_RESULT_CHARACTERS.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** Reads only: offered to read-only tokens and `read`-scoped OAuth tokens. */
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
  input: I;
  output: O;
  /** An MCP Apps view (`ui://…`) that shows the tool's result in clients with the extension (lib/mcp/apps.ts). */
  ui?: string;
  run: (ctx: DomainContext, input: z.infer<I>) => Promise<z.infer<O>>;
}

/** No tool result is longer than this many characters of text (long fields are cut with a marker). */
export const MAX_RESULT_CHARACTERS = 20_000;
const LONG_TEXT = 2_000;
/** The most of a wiki page one wiki_get_page result carries. */
const WIKI_WINDOW = 20_000;

const page = z.number().int().min(1).max(10_000).default(1).describe('Page, from 1');
const limit = z.number().int().min(1).max(50).default(20).describe('Items per page (max 50)');
const ticketRef = {
  ticketId: z.string().max(100).optional().describe('tkt_… id'),
  displayId: z.string().max(30).optional().describe('or display id (PLAT-12)'),
};
/** Fencing (docs/claims.md): the claimCount tickets_claim returned; the write is refused with CLAIM_SUPERSEDED once that lease is no longer yours. */
const claimCount = z.number().int().min(0).optional().describe('Your claim\'s claimCount (fencing)');
const withFence = (ctx: DomainContext, fence: number | undefined): DomainContext => (fence === undefined ? ctx : { ...ctx, claimFence: fence });
const pageOutput = { total: z.number(), page: z.number(), totalPages: z.number() };

/** A ticket as lists show it to a model: what it needs to pick work, nothing more. */
const compactTicket = z.object({
  id: z.string(),
  displayId: z.string(),
  boardId: z.string(),
  title: z.string(),
  status: z.string(),
  statusCategory: z.string(),
  priority: z.string(),
  assigneeId: z.string().nullable(),
  claimedBy: z.string().nullable(),
  claimExpiresAt: z.string().nullable(),
});

/** A presented ticket (the REST presenter's own output, a list item or a full ticket alike), cut to what a model needs. */
const compact = (ticket: Ticket): z.infer<typeof compactTicket> => ({
  id: ticket.id,
  displayId: ticket.displayId,
  boardId: ticket.boardId,
  title: ticket.title,
  status: ticket.status.name,
  statusCategory: ticket.status.category,
  priority: ticket.priority,
  assigneeId: ticket.assignee?.id ?? null,
  claimedBy: ticket.claim?.claimedBy.name ?? null,
  claimExpiresAt: ticket.claim?.claimExpiresAt ?? null,
});

const DESCRIPTION_PART = 8_000;

/** A part of a long description, saying where the next part starts. */
function part(text: string, offset: number, size: number): string {
  const slice = text.slice(offset, offset + size);
  const end = offset + slice.length;
  return end < text.length ? `${slice}… [characters ${offset}–${end} of ${text.length}; tickets_get with descriptionOffset=${end} reads on]` : slice;
}

/** Cuts a long text, saying so and naming the tool that reads the rest. */
export const cut = (text: string, max: number, readWith: string): string =>
  text.length <= max ? text : `${text.slice(0, max)}… [cut at ${max} of ${text.length} characters; ${readWith}]`;

async function locate(ctx: DomainContext, input: { ticketId?: string | undefined; displayId?: string | undefined }) {
  const ref = input.ticketId ?? input.displayId;
  if (!ref) throw invalidField('ticketId', 'Name the ticket by ticketId or displayId');
  return locateTicket(ctx, ref);
}

/** Where the last holder of a ticket stopped, as one text (null when no lease left a handoff): a model reads it, no program parses it. */
const handoffOutput = z.string().nullable().describe('Where the last holder stopped');

/** A handoff as lines of text: who and when, then each field it has. */
function handoffText(handoff: NonNullable<Awaited<ReturnType<typeof claimTicket>>['handoff']>): string {
  return [
    `${handoff.auto ? 'Lease lapsed' : 'Handed over'} by ${handoff.from.name} at ${handoff.createdAt} (claimCount ${handoff.claimCount}).`,
    ...(handoff.summary ? [`Summary: ${handoff.summary}`] : []),
    ...(handoff.nextSteps ? [`Next steps: ${handoff.nextSteps}`] : []),
    ...(handoff.branch ? [`Branch: ${handoff.branch}`] : []),
    ...(handoff.links.length ? [`Links: ${handoff.links.join(' ')}`] : []),
    ...(handoff.lastNote ? [`Last note${handoff.lastHeartbeatAt ? ` (${handoff.lastHeartbeatAt})` : ''}: ${handoff.lastNote}`] : []),
  ].join('\n');
}

const claimOutput = z.object({
  ticketId: z.string(),
  displayId: z.string(),
  claimedBy: z.string(),
  client: z.string().nullable(),
  claimExpiresAt: z.string(),
  claimCount: z.number().describe('The fencing number of this lease'),
  alreadyHeld: z.boolean(),
  handoff: handoffOutput,
});

/** A claim answer (tickets_claim, tickets_claim_next) as a model sees it. */
const compactClaim = (outcome: Awaited<ReturnType<typeof claimTicket>>): z.infer<typeof claimOutput> => ({
  ticketId: outcome.ticket.id,
  displayId: outcome.ticket.displayId,
  claimedBy: outcome.claim.claimedBy.name,
  client: outcome.claim.client,
  claimExpiresAt: outcome.claim.claimExpiresAt,
  claimCount: outcome.claim.claimCount,
  alreadyHeld: outcome.alreadyHeld,
  handoff: outcome.handoff ? handoffText(outcome.handoff) : null,
});

const leaseSeconds = leaseLength.optional();
const ids = z.array(idParam).max(100, 'At most 100').optional();

const filterInput = {
  boardId: z.string().max(100).optional().describe('Only this board'),
  statusId: z.string().max(100).optional(),
  assigneeId: z.string().max(100).optional(),
  claimable: z.boolean().optional().describe('Only tickets nobody holds a live claim on'),
  assignedToMe: z.boolean().optional(),
  claimedBy: z.string().max(100).optional().describe('A user id, or "me"'),
  includePlanning: z.boolean().optional().describe('Also Backlog / To Do tickets'),
  page,
  limit,
};

type FilterInput = z.infer<z.ZodObject<typeof filterInput>>;

/** The one filter implementation shared with GET /api/v1/issues (the API reference). */
async function listTickets(ctx: DomainContext, input: FilterInput & { query?: string }) {
  const result = await listIssues(ctx, {
    page: input.page,
    limit: input.limit,
    ...(input.boardId ? { boardIds: [input.boardId] } : {}),
    ...(input.statusId ? { statusIds: [input.statusId] } : {}),
    ...(input.assigneeId ? { assigneeId: input.assigneeId } : {}),
    ...(input.claimable !== undefined ? { claimable: input.claimable } : {}),
    ...(input.assignedToMe !== undefined ? { assignedToMe: input.assignedToMe } : {}),
    ...(input.claimedBy ? { claimedBy: input.claimedBy === 'me' ? ctx.actor.userId : input.claimedBy } : {}),
    ...(input.includePlanning !== undefined ? { includePlanning: input.includePlanning } : {}),
    ...(input.query ? { search: input.query } : {}),
  });
  return { tickets: result.items.map(compact), total: result.total, page: result.page, totalPages: result.totalPages };
}

const define = <I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>) => tool as unknown as ToolDefinition;

export const TOOLS: readonly ToolDefinition[] = [
  define({
    name: 'boards_list',
    title: 'List boards',
    description: 'Boards you can see (id, name, prefix). Use a board id to narrow tickets_list.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ search: z.string().max(100).optional(), page, limit }),
    output: z.object({ boards: z.array(z.object({ id: z.string(), name: z.string(), prefix: z.string() })), ...pageOutput }),
    run: async (ctx, input) => {
      const result = await listBoards(ctx, { page: input.page, limit: input.limit, ...(input.search ? { search: input.search } : {}) });
      return { boards: result.items.map((board) => ({ id: board.id, name: board.name, prefix: board.prefix })), total: result.total, page: result.page, totalPages: result.totalPages };
    },
  }),
  define({
    name: 'statuses_list',
    title: 'List statuses',
    description: 'The workflow statuses in order, with their category (PLANNING, ACTIVE, FINAL). Use a status id with tickets_set_status.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({}),
    output: z.object({ statuses: z.array(z.object({ id: z.string(), name: z.string(), key: z.string(), category: z.string() })) }),
    run: async (ctx) => ({ statuses: (await listStatuses(ctx)).map((status) => ({ id: status.id, name: status.name, key: status.key, category: status.category })) }),
  }),
  define({
    name: 'tickets_list',
    title: 'List tickets',
    description: 'Tickets across your boards, filtered. claimable=true finds work nobody holds; claimedBy="me" your claims.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object(filterInput),
    output: z.object({ tickets: z.array(compactTicket), ...pageOutput }),
    run: (ctx, input) => listTickets(ctx, input),
  }),
  define({
    name: 'tickets_search',
    title: 'Search tickets',
    description: 'Like tickets_list, matching query in titles and descriptions.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ query: ticketSearch, ...filterInput }),
    output: z.object({ tickets: z.array(compactTicket), ...pageOutput }),
    run: (ctx, input) => listTickets(ctx, input),
  }),
  define({
    name: 'tickets_get',
    title: 'Get a ticket',
    description: 'One ticket in full: description, status, claim, subtickets, and its latest comments.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ ...ticketRef, descriptionOffset: z.number().int().min(0).max(1_000_000).optional().describe('Read the description from here (long ones come in parts)') }),
    output: z.object({
      ticket: z.object({
        id: z.string(),
        displayId: z.string(),
        boardId: z.string(),
        title: z.string(),
        description: z.string(),
        status: z.string(),
        statusCategory: z.string(),
        priority: z.string(),
        assigneeId: z.string().nullable(),
        claim: z.object({ claimedBy: z.string(), claimExpiresAt: z.string(), claimCount: z.number() }).nullable(),
        subticketIds: z.array(z.string()),
        blocked: z.boolean(),
      }),
      latestComments: z.array(z.object({ id: z.string(), author: z.string(), content: z.string(), createdAt: z.string() })),
    }),
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      const [ticket, comments] = await Promise.all([getTicket(ctx, boardId, ticketId), listComments(ctx, boardId, ticketId, { page: 1, limit: 5 })]);
      return {
        ticket: {
          id: ticket.id,
          displayId: ticket.displayId,
          boardId: ticket.boardId,
          title: ticket.title,
          description: part(ticket.description, input.descriptionOffset ?? 0, DESCRIPTION_PART),
          status: ticket.status.name,
          statusCategory: ticket.status.category,
          priority: ticket.priority,
          assigneeId: ticket.assignee?.id ?? null,
          claim: ticket.claim ? { claimedBy: ticket.claim.claimedBy.name, claimExpiresAt: ticket.claim.claimExpiresAt, claimCount: ticket.claim.claimCount } : null,
          subticketIds: ticket.subticketIds,
          blocked: ticket.blockerInfo !== null,
        },
        latestComments: comments.items.map((comment) => ({
          id: comment.id,
          author: comment.author.name,
          content: cut(comment.content, LONG_TEXT, 'comments_list shows comments in full'),
          createdAt: comment.createdAt,
        })),
      };
    },
  }),
  define({
    name: 'tickets_create',
    title: 'Create a ticket',
    description: 'A new ticket on a board (default status and type unless given).',
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({
      boardId: idParam,
      title: ticketTitle,
      description: ticketDescription.optional(),
      priority: z.enum(PRIORITIES).optional(),
      assigneeId: idParam.optional(),
      statusId: idParam.optional(),
    }),
    output: compactTicket,
    run: async (ctx, { boardId, ...fields }) => compact(await createBoardTicket(ctx, boardId, fields)),
  }),
  define({
    name: 'tickets_update',
    title: 'Update a ticket',
    description: 'Change title, description, priority, assignee or due date. Pass claimCount to write only while your claim stands.',
    readOnly: false,
    destructive: false,
    idempotent: true,
    input: z.object({
      ...ticketRef,
      title: ticketTitle.optional(),
      description: ticketDescription.optional(),
      priority: z.enum(PRIORITIES).optional(),
      assigneeId: idParam.nullable().optional(),
      dueDate: ticketTimestamp.nullable().optional().describe('ISO 8601, or null'),
      claimCount,
    }),
    output: compactTicket,
    run: async (ctx, { ticketId: _id, displayId: _display, claimCount: fence, ...changes }) => {
      const { boardId, ticketId } = await locate(ctx, { ticketId: _id, displayId: _display });
      return compact(await patchTicket(withFence(ctx, fence), boardId, ticketId, changes));
    },
  }),
  define({
    name: 'tickets_set_status',
    title: 'Set a ticket status',
    description: "Move a ticket to a status (statuses_list). An agent may meet the board's approval gate: AGENT_APPROVAL_REQUIRED, with a pending suggestion for a person to accept.",
    readOnly: false,
    destructive: false,
    idempotent: true,
    input: z.object({ ...ticketRef, statusId: idParam, reason: statusChangeReason.optional(), claimCount }),
    output: compactTicket,
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      const ticket = await changeTicketStatus(withFence(ctx, input.claimCount), boardId, ticketId, { statusId: input.statusId, ...(input.reason ? { reason: input.reason } : {}) });
      return compact(ticket);
    },
  }),
  define({
    name: 'tickets_claim_next',
    title: 'Claim the next ready ticket',
    description: 'Atomically claim the most urgent ready ticket (unclaimed, unblocked, dependencies done); claim null: none is ready.',
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({
      leaseSeconds,
      assign: z.boolean().optional(),
      boardIds: ids,
      statusIds: ids,
      labelIds: ids,
      typeIds: ids,
      priorities: z.array(z.enum(PRIORITIES)).max(4).optional(),
    }),
    output: z.object({
      claim: claimOutput.nullable(),
      dispatchPaused: z.enum(['organization', 'agent', 'board', 'budget']).optional().describe('No work given: dispatch is paused there'),
    }),
    run: async (ctx, input) => {
      const { claimed, paused } = await claimNext(ctx, input);
      return { claim: claimed ? compactClaim(claimed) : null, ...(paused ? { dispatchPaused: paused } : {}) };
    },
  }),
  define({
    name: 'tickets_claim',
    title: 'Claim a ticket',
    description: 'Take an exclusive, expiring lease on a named ticket before working on it. Renew it with tickets_heartbeat.',
    readOnly: false,
    destructive: false,
    idempotent: true,
    input: z.object({ ...ticketRef, leaseSeconds, assign: z.boolean().optional().describe('Also assign it to you') }),
    output: claimOutput,
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      return compactClaim(await claimTicket(ctx, boardId, ticketId, { ...(input.leaseSeconds ? { leaseSeconds: input.leaseSeconds } : {}), ...(input.assign !== undefined ? { assign: input.assign } : {}) }));
    },
  }),
  define({
    name: 'tickets_heartbeat',
    title: 'Renew a claim',
    description: 'Extend your lease. note: your progress, handed on if the lease lapses. CLAIM_NOT_HELD: you lost it, stop. Obey directive (stop: release now; pause: only heartbeat) and messages.',
    readOnly: false,
    destructive: false,
    idempotent: true,
    input: z.object({ ...ticketRef, extendSeconds: leaseLength.optional(), note: heartbeatNote.optional(), usage: runUsage.optional(), claimCount }),
    output: z.object({
      claimExpiresAt: z.string(),
      claimCount: z.number(),
      directive: z.object({ action: z.enum(['stop', 'pause', 'resume']), message: z.string().nullable(), by: z.string() }).nullable(),
      messages: z.array(z.object({ from: z.string(), text: z.string() })),
    }),
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      const beat = await heartbeatClaim(withFence(ctx, input.claimCount), boardId, ticketId, {
        ...(input.extendSeconds ? { extendSeconds: input.extendSeconds } : {}),
        ...(input.note !== undefined ? { note: input.note } : {}),
        ...(input.usage ? { usage: input.usage } : {}),
      });
      const { directive } = beat;
      return {
        claimExpiresAt: beat.claimExpiresAt,
        claimCount: beat.claimCount,
        directive: directive ? { action: directive.action, message: directive.message, by: directive.requestedBy.name } : null,
        messages: beat.messages.map((message) => ({ from: message.from.name, text: message.text })),
      };
    },
  }),
  define({
    name: 'tickets_release',
    title: 'Release a claim',
    description: 'Give up your lease so others can take it; summary (with nextSteps, branch, links) is the handoff the next holder reads.',
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({
      ...ticketRef,
      reason: statusChangeReason.optional(),
      summary: handoffFields.summary.optional(),
      nextSteps: handoffFields.nextSteps.optional(),
      branch: handoffFields.branch.optional(),
      links: handoffFields.links.optional(),
      claimCount,
    }),
    output: z.object({ released: z.boolean() }),
    run: async (ctx, { summary, nextSteps, branch, links, ...input }) => {
      const { boardId, ticketId } = await locate(ctx, input);
      if (summary === undefined && (nextSteps ?? branch ?? links) !== undefined) throw invalidField('summary', 'A handoff needs its summary');
      const handoff = summary === undefined ? undefined : { summary, ...(nextSteps !== undefined ? { nextSteps } : {}), ...(branch !== undefined ? { branch } : {}), ...(links ? { links } : {}) };
      return releaseClaim(withFence(ctx, input.claimCount), boardId, ticketId, { ...(input.reason ? { reason: input.reason } : {}), ...(handoff ? { handoff } : {}) });
    },
  }),
  define({
    name: 'tickets_report',
    title: 'Report a run',
    description: 'Finish a run on a ticket you hold: the outcome and a short summary, optionally a PR or branch; setStatus moves it to the outcome\'s status; releaseClaim hands the lease back.',
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({ ...ticketRef, ...reportFields(), claimCount }),
    output: z.object({
      ticketId: z.string(),
      displayId: z.string(),
      outcome: z.enum(REPORT_OUTCOMES),
      statusId: z.string(),
      statusChanged: z.boolean(),
      claimReleased: z.boolean(),
      approvalRequired: z.boolean().optional(),
    }),
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      return reportRun(withFence(ctx, input.claimCount), boardId, ticketId, {
        outcome: input.outcome,
        summary: input.summary,
        prUrl: input.prUrl,
        branch: input.branch,
        setStatus: input.setStatus,
        releaseClaim: input.releaseClaim,
        clientName: ctx.actor.credential.clientLabel,
        usage: input.usage,
      });
    },
  }),
  define({
    name: 'comments_list',
    title: 'List comments',
    description: "A ticket's comments, oldest first.",
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ ...ticketRef, page, limit }),
    output: z.object({ comments: z.array(z.object({ id: z.string(), author: z.string(), content: z.string(), createdAt: z.string() })), ...pageOutput }),
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      const result = await listComments(ctx, boardId, ticketId, { page: input.page, limit: input.limit });
      const share = Math.floor((MAX_RESULT_CHARACTERS - 1_000) / Math.max(1, result.items.length));
      return {
        comments: result.items.map((comment) => ({
          id: comment.id,
          author: comment.author.name,
          content: cut(comment.content, Math.min(share, 8_000), 'ask for a smaller limit to read more of each'),
          createdAt: comment.createdAt,
        })),
        total: result.total,
        page: result.page,
        totalPages: result.totalPages,
      };
    },
  }),
  define({
    name: 'comments_add',
    title: 'Add a comment',
    description: 'Comment on a ticket (progress notes, questions, findings).',
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({ ...ticketRef, content: commentContent, claimCount }),
    output: z.object({ id: z.string(), createdAt: z.string() }),
    run: async (ctx, input) => {
      const { boardId, ticketId } = await locate(ctx, input);
      const comment = await createComment(withFence(ctx, input.claimCount), boardId, ticketId, { content: input.content });
      return { id: comment.id, createdAt: comment.createdAt };
    },
  }),
  define({
    name: 'time_log',
    title: 'Log time',
    description: "Book time on a ticket. An agent's time waits for approval (PENDING) and counts against its weekly cap.",
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({
      ...ticketRef,
      durationMinutes: entryDurationMinutes,
      description: entryDescription.optional(),
      date: calendarDate.optional().describe('YYYY-MM-DD, default today (UTC)'),
      claimCount,
    }),
    output: z.object({ id: z.string(), state: z.string(), durationMinutes: z.number(), date: z.string() }),
    run: async (ctx, input) => {
      const ticketId = input.ticketId ?? input.displayId;
      if (!ticketId) throw invalidField('ticketId', 'Name the ticket by ticketId or displayId');
      const { durationMinutes, description, date } = input;
      const entry = await createEntry(withFence(ctx, input.claimCount), { ticketId, durationMinutes, ...(description !== undefined ? { description } : {}), ...(date !== undefined ? { date } : {}) }, 'MCP');
      return { id: entry.id, state: entry.state, durationMinutes: entry.durationMinutes, date: entry.date };
    },
  }),
  define({
    name: 'wiki_search',
    title: 'Search the wiki',
    description: 'Find wiki pages by words in their title or content (any case), in one space or every space you may view.',
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ query: requiredText(200), spaceId: idParam.optional(), page, limit }),
    output: z.object({ hits: z.array(z.object({ spaceId: z.string(), pageId: z.string(), title: z.string(), snippet: z.string() })), ...pageOutput }),
    run: async (ctx, input) => {
      const paging = { page: input.page, limit: input.limit };
      if (input.spaceId) {
        const found = await searchSpace(ctx, input.spaceId, input.query, paging);
        return { hits: found.items.map((hit) => ({ spaceId: hit.spaceId, pageId: hit.id, title: hit.title, snippet: hit.snippet })), total: found.total, page: found.page, totalPages: found.totalPages };
      }
      const found = await searchWiki(ctx, input.query, paging);
      return { hits: found.items.map((hit) => ({ spaceId: hit.space.id, pageId: hit.pageId, title: hit.title, snippet: hit.snippet })), total: found.total, page: found.page, totalPages: found.totalPages };
    },
  }),
  define({
    name: 'wiki_get_page',
    title: 'Read a wiki page',
    description: `A wiki page's content from \`offset\`, at most ${groupDigits(WIKI_WINDOW)} characters; \`nextOffset\` reads on.`,
    readOnly: true,
    destructive: false,
    idempotent: true,
    input: z.object({ spaceId: z.string().max(100), pageId: z.string().max(100), offset: z.number().int().min(0).default(0) }),
    output: z.object({ pageId: z.string(), title: z.string(), version: z.number(), contentLength: z.number(), offset: z.number(), nextOffset: z.number().nullable(), content: z.string() }),
    run: async (ctx, input) => {
      const found = await getPage(ctx, input.spaceId, input.pageId);
      if (input.offset > found.content.length) throw invalidField('offset', `The page has ${found.content.length} characters`);
      return pageWindow(found, input.offset);
    },
  }),
  define({
    name: 'inbox_show',
    title: 'Show my inbox',
    description:
      "What waits for you: agents' suggested moves (decide with suggestions_decide) and, for approvers, agents' time (time_entries_decide).",
    readOnly: true,
    destructive: false,
    idempotent: true,
    ui: INBOX_APP_URI,
    input: z.object({}),
    output: z.object({
      suggestions: z.array(z.object({ id: z.string(), boardId: z.string(), ticketId: z.string(), displayId: z.string(), title: z.string(), to: z.string().nullable(), reason: z.string().nullable(), by: z.string() })),
      suggestionsTotal: z.number(),
      pendingTime: z.array(z.object({ id: z.string(), agent: z.string(), minutes: z.number(), description: z.string(), displayId: z.string().nullable() })),
      pendingTimeTotal: z.number(),
      mayApproveTime: z.boolean(),
    }),
    run: async (ctx) => {
      const mayApproveTime = hasPermission(ctx, 'time-tracking:approve');
      const [suggestions, time] = await Promise.all([
        ctx.actor.role === 'CUSTOMER' ? null : listPendingSuggestions(ctx, { page: 1, limit: 50 }),
        mayApproveTime && ctx.org.timeTrackingEnabled ? listEntries(ctx, { page: 1, limit: 50, state: 'PENDING' }) : null,
      ]);
      return {
        suggestions: (suggestions?.items ?? []).map((item) => ({
          id: item.id,
          boardId: item.boardId,
          ticketId: item.ticketId,
          displayId: item.ticket.displayId,
          title: cut(item.ticket.title, 200, 'tickets_get shows it in full'),
          to: item.toStatus.name,
          reason: item.reason === null ? null : cut(item.reason, 500, 'tickets_get shows the ticket'),
          by: item.suggestedBy.name,
        })),
        suggestionsTotal: suggestions?.total ?? 0,
        pendingTime: (time?.items ?? []).map((entry) => ({
          id: entry.id,
          agent: entry.user.name,
          minutes: entry.durationMinutes,
          description: cut(entry.description, 500, 'the time entries route shows it in full'),
          displayId: entry.ticket?.displayId ?? null,
        })),
        pendingTimeTotal: time?.total ?? 0,
        mayApproveTime,
      };
    },
  }),
  define({
    name: 'suggestions_decide',
    title: "Decide an agent's suggested move",
    description: "Accept (the ticket moves) or reject an agent's suggestion from inbox_show.",
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({ boardId: idParam, ticketId: idParam, suggestionId: idParam, decision: z.enum(['accept', 'reject']), reason: statusChangeReason.optional() }),
    output: z.object({ id: z.string(), state: z.string(), ticketId: z.string() }),
    run: async (ctx, input) => {
      const decide = input.decision === 'accept' ? acceptSuggestion : rejectSuggestion;
      const decided = await decide(ctx, input.boardId, input.ticketId, input.suggestionId, input.reason ? { reason: input.reason } : {});
      return { id: decided.id, state: decided.state, ticketId: decided.ticketId };
    },
  }),
  define({
    name: 'time_entries_decide',
    title: "Decide an agent's time",
    description: "Approve or reject an agent's pending time from inbox_show.",
    readOnly: false,
    destructive: false,
    idempotent: false,
    input: z.object({ entryId: idParam, decision: z.enum(['approve', 'reject']), reason: z.string().max(500).optional() }),
    output: z.object({ id: z.string(), state: z.string() }),
    run: async (ctx, input) => {
      const decided = await decideEntry(ctx, input.entryId, input.decision === 'approve' ? 'APPROVED' : 'REJECTED', input.decision === 'reject' ? input.reason : undefined);
      return { id: decided.id, state: decided.state };
    },
  }),
];

/**
 * A window of a page's content from `offset`: at most WIKI_WINDOW characters, never ending
 * inside a surrogate pair, shrunk until the whole result fits MAX_RESULT_CHARACTERS as JSON
 * (quotes and newlines take two); a marker at its end names the offset to continue from.
 */
function pageWindow(found: { id: string; title: string; version: number; content: string }, offset: number) {
  const { content } = found;
  let size = WIKI_WINDOW;
  for (;;) {
    let end = Math.min(content.length, offset + size);
    const high = content.charCodeAt(end - 1);
    if (end < content.length && high >= 0xd800 && high <= 0xdbff) end -= 1;
    const more = end < content.length;
    const result = {
      pageId: found.id,
      title: found.title,
      version: found.version,
      contentLength: content.length,
      offset,
      nextOffset: more ? end : null,
      content: `${content.slice(offset, end)}${more ? `\n[… ${content.length - end} more characters: wiki_get_page with offset ${end}]` : ''}`,
    };
    const length = JSON.stringify(result).length;
    if (length <= MAX_RESULT_CHARACTERS || size <= 1_000) return result;
    size = Math.max(1_000, Math.floor((size * MAX_RESULT_CHARACTERS) / length) - 200);
  }
}

/** The tools a credential is offered: read-only tokens and `read`-scoped OAuth tokens get the read tools only. */
export function toolsFor(ctx: DomainContext): readonly ToolDefinition[] {
  const credential = ctx.actor.credential;
  const writes = !credential.readOnly && (credential.scopes === null || credential.scopes.includes('write'));
  return TOOLS.filter((tool) => tool.readOnly || writes);
}

/** A domain error as a tool result's structured content. */
export const errorContent = (error: AppError) => ({ error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } });
