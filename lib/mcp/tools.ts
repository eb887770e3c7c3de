import * as z from 'zod';
import { type AppError, invalidField } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import type { Operation, OperationTarget } from '../core/operation.js';
import { listBoards, listBoardsOp } from '../boards/index.js';
import { listStatuses, listStatusesOp } from '../statuses/index.js';
import {
  listIssues, createBoardTicket, getTicket, patchTicket, changeTicketStatus, REPORT_OUTCOMES, reportRun, claimTicket, claimNext, heartbeatClaim, releaseClaim, locateTicket,
  ticketSearch, type Ticket, acceptSuggestion, listPendingSuggestions, rejectSuggestion,
  changeStatusOp, claimNextOp, claimTicketOp, createTicketOp, decideSuggestionOp, getTicketOp, heartbeatOp, listTicketsOp, pendingSuggestionsOp, releaseClaimOp, reportRunOp, updateTicketOp,
} from '../tickets/index.js';
import { addCommentOp, createComment, listComments, listCommentsOp } from '../comments/index.js';
import { createEntry, decideEntry, decideEntryOp, listEntries, logTimeOp } from '../time/index.js';
import { idParam, requiredText } from '../core/fields.js';
import { groupDigits } from '../core/text.js';
import { getPage, getPageOp, searchSpace, searchWiki, searchWikiOp } from '../wiki/index.js';
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
  /** The domain operation the tool offers: its hints, input fields and fence come from it (`tool`). */
  operation: Operation;
  /** Reads only (the operation's scope is `read`): offered to read-only tokens and `read`-scoped OAuth tokens. */
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

/** Where a tool of a ticket or a board acts: the ticket located from `ticketId` or `displayId`, the board from `boardId`. */
type Where<T> = T extends 'ticket' ? { boardId: string; ticketId: string } : T extends 'board' ? { boardId: string } : Record<string, never>;

interface ToolSpec<I extends z.ZodObject, T, K extends keyof I['shape'], X extends z.ZodRawShape, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  ui?: string;
  /** The operation's input fields the tool takes, unless all of them (a tool may offer fewer than the REST route; never another schema). */
  fields?: readonly K[];
  /**
   * Arguments only MCP has, each an adapter's concern and none an operation's field: pages sized
   * for a model's context, reading long text in parts, the filters of the tools' flat list
   * arguments, naming what REST names in the path or by the route.
   */
  extra?: X;
  output: O;
  run: (ctx: DomainContext, input: z.infer<z.ZodObject<Pick<I['shape'], K> & X>>, where: Where<T>) => Promise<z.infer<O>>;
}

/**
 * An MCP tool of a domain operation (lib/core/operation.ts): its hints, its input fields (the
 * operation's own schemas, the same objects REST validates with), naming the ticket or board it
 * acts on, and the fence (`claimCount`) come from the operation; the tool adds its name, its
 * words, what a model sees of the result, and only the arguments `extra` lists.
 */
function tool<I extends z.ZodObject, T extends OperationTarget | undefined, const K extends keyof I['shape'] & string = keyof I['shape'] & string, X extends z.ZodRawShape = Record<never, never>, O extends z.ZodObject = z.ZodObject>(
  op: Operation<I, T>,
  spec: ToolSpec<I, T, K, X, O>,
): ToolDefinition {
  let input: z.ZodObject | undefined;
  const inputOf = (): z.ZodObject => {
    if (input) return input;
    const fields = op.input().shape as Record<string, z.ZodType>;
    const picked = spec.fields ? Object.fromEntries(spec.fields.map((key) => [key, fields[key]!])) : fields;
    input = z.object({
      ...(op.target === 'ticket' ? ticketRef : op.target === 'board' ? { boardId: idParam } : {}),
      ...picked,
      ...spec.extra,
      ...(op.fenced ? { claimCount } : {}),
    });
    return input;
  };
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    operation: op,
    readOnly: op.scope === 'read',
    // No tool deletes or overwrites what it cannot restore.
    destructive: false,
    idempotent: op.idempotent,
    get input() {
      return inputOf();
    },
    output: spec.output,
    ...(spec.ui ? { ui: spec.ui } : {}),
    run: async (ctx, args) => {
      const { claimCount: fence, ...rest } = args as Record<string, unknown> & { ticketId?: string; displayId?: string; boardId?: string; claimCount?: number };
      // The arguments that name the target are the adapter's: the tool's run gets what they locate.
      const naming = op.target === 'ticket' ? ['ticketId', 'displayId'] : op.target === 'board' ? ['boardId'] : [];
      const input = Object.fromEntries(Object.entries(rest).filter(([key]) => !naming.includes(key)));
      const where = op.target === 'ticket' ? await locate(ctx, rest) : op.target === 'board' ? { boardId: rest.boardId } : {};
      return spec.run(withFence(ctx, fence), input as never, where as Where<T>);
    },
  };
}

/** A tool's fields when it lists items: the page and its size, sized for a model's context. */
const paging = { page, limit };

export const TOOLS: readonly ToolDefinition[] = [
  tool(listBoardsOp, {
    name: 'boards_list',
    title: 'List boards',
    description: 'Boards you can see (id, name, prefix). Use a board id to narrow tickets_list.',
    extra: paging,
    output: z.object({ boards: z.array(z.object({ id: z.string(), name: z.string(), prefix: z.string() })), ...pageOutput }),
    run: async (ctx, input) => {
      const result = await listBoards(ctx, { page: input.page, limit: input.limit, ...(input.search ? { search: input.search } : {}) });
      return { boards: result.items.map((board) => ({ id: board.id, name: board.name, prefix: board.prefix })), total: result.total, page: result.page, totalPages: result.totalPages };
    },
  }),
  tool(listStatusesOp, {
    name: 'statuses_list',
    title: 'List statuses',
    description: 'The workflow statuses in order, with their category (PLANNING, ACTIVE, FINAL). Use a status id with tickets_set_status.',
    output: z.object({ statuses: z.array(z.object({ id: z.string(), name: z.string(), key: z.string(), category: z.string() })) }),
    run: async (ctx) => ({ statuses: (await listStatuses(ctx)).map((status) => ({ id: status.id, name: status.name, key: status.key, category: status.category })) }),
  }),
  tool(listTicketsOp, {
    name: 'tickets_list',
    title: 'List tickets',
    description: 'Tickets across your boards, filtered. claimable=true finds work nobody holds; claimedBy="me" your claims.',
    extra: filterInput,
    output: z.object({ tickets: z.array(compactTicket), ...pageOutput }),
    run: (ctx, input) => listTickets(ctx, input),
  }),
  tool(listTicketsOp, {
    name: 'tickets_search',
    title: 'Search tickets',
    description: 'Like tickets_list, matching query in titles and descriptions.',
    extra: { query: ticketSearch, ...filterInput },
    output: z.object({ tickets: z.array(compactTicket), ...pageOutput }),
    run: (ctx, input) => listTickets(ctx, input),
  }),
  tool(getTicketOp, {
    name: 'tickets_get',
    title: 'Get a ticket',
    description: 'One ticket in full: description, status, claim, subtickets, and its latest comments.',
    extra: { descriptionOffset: z.number().int().min(0).max(1_000_000).optional().describe('Read the description from here (long ones come in parts)') },
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
    run: async (ctx, input, { boardId, ticketId }) => {
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
  tool(createTicketOp, {
    name: 'tickets_create',
    title: 'Create a ticket',
    description: 'A new ticket on a board (default status and type unless given).',
    fields: ['title', 'description', 'priority', 'assigneeId', 'statusId'],
    output: compactTicket,
    run: async (ctx, fields, { boardId }) => compact(await createBoardTicket(ctx, boardId, fields)),
  }),
  tool(updateTicketOp, {
    name: 'tickets_update',
    title: 'Update a ticket',
    description: 'Change title, description, priority, assignee or due date. Pass claimCount to write only while your claim stands.',
    fields: ['title', 'description', 'priority', 'assigneeId', 'dueDate'],
    output: compactTicket,
    run: async (ctx, changes, { boardId, ticketId }) => compact(await patchTicket(ctx, boardId, ticketId, changes)),
  }),
  tool(changeStatusOp, {
    name: 'tickets_set_status',
    title: 'Set a ticket status',
    description: "Move a ticket to a status (statuses_list). An agent may meet the board's approval gate: AGENT_APPROVAL_REQUIRED, with a pending suggestion for a person to accept.",
    output: compactTicket,
    run: async (ctx, input, { boardId, ticketId }) => compact(await changeTicketStatus(ctx, boardId, ticketId, input)),
  }),
  tool(claimNextOp, {
    name: 'tickets_claim_next',
    title: 'Claim the next ready ticket',
    description: 'Atomically claim the most urgent ready ticket (unclaimed, unblocked, dependencies done); claim null: none is ready.',
    output: z.object({
      claim: claimOutput.nullable(),
      dispatchPaused: z.enum(['organization', 'agent', 'board', 'budget']).optional().describe('No work given: dispatch is paused there'),
    }),
    run: async (ctx, input) => {
      const { claimed, paused } = await claimNext(ctx, input);
      return { claim: claimed ? compactClaim(claimed) : null, ...(paused ? { dispatchPaused: paused } : {}) };
    },
  }),
  tool(claimTicketOp, {
    name: 'tickets_claim',
    title: 'Claim a ticket',
    description: 'Take an exclusive, expiring lease on a named ticket before working on it. Renew it with tickets_heartbeat.',
    output: claimOutput,
    run: async (ctx, input, { boardId, ticketId }) => compactClaim(await claimTicket(ctx, boardId, ticketId, input)),
  }),
  tool(heartbeatOp, {
    name: 'tickets_heartbeat',
    title: 'Renew a claim',
    description: 'Extend your lease. note: your progress, handed on if the lease lapses. CLAIM_NOT_HELD: you lost it, stop. Obey directive (stop: release now; pause: only heartbeat) and messages.',
    output: z.object({
      claimExpiresAt: z.string(),
      claimCount: z.number(),
      directive: z.object({ action: z.enum(['stop', 'pause', 'resume']), message: z.string().nullable(), by: z.string() }).nullable(),
      messages: z.array(z.object({ from: z.string(), text: z.string() })),
    }),
    run: async (ctx, input, { boardId, ticketId }) => {
      const beat = await heartbeatClaim(ctx, boardId, ticketId, input);
      const { directive } = beat;
      return {
        claimExpiresAt: beat.claimExpiresAt,
        claimCount: beat.claimCount,
        directive: directive ? { action: directive.action, message: directive.message, by: directive.requestedBy.name } : null,
        messages: beat.messages.map((message) => ({ from: message.from.name, text: message.text })),
      };
    },
  }),
  tool(releaseClaimOp, {
    name: 'tickets_release',
    title: 'Release a claim',
    description: 'Give up your lease so others can take it; handoff is what the next holder reads.',
    output: z.object({ released: z.boolean() }),
    run: (ctx, input, { boardId, ticketId }) => releaseClaim(ctx, boardId, ticketId, input),
  }),
  tool(reportRunOp, {
    name: 'tickets_report',
    title: 'Report a run',
    description: 'Finish a run on a ticket you hold: the outcome and a short summary, optionally a PR or branch; setStatus moves it to the outcome\'s status; releaseClaim hands the lease back.',
    output: z.object({
      ticketId: z.string(),
      displayId: z.string(),
      outcome: z.enum(REPORT_OUTCOMES),
      statusId: z.string(),
      statusChanged: z.boolean(),
      claimReleased: z.boolean(),
      approvalRequired: z.boolean().optional(),
    }),
    run: (ctx, input, { boardId, ticketId }) => reportRun(ctx, boardId, ticketId, { ...input, clientName: ctx.actor.credential.clientLabel }),
  }),
  tool(listCommentsOp, {
    name: 'comments_list',
    title: 'List comments',
    description: "A ticket's comments, oldest first.",
    extra: paging,
    output: z.object({ comments: z.array(z.object({ id: z.string(), author: z.string(), content: z.string(), createdAt: z.string() })), ...pageOutput }),
    run: async (ctx, input, { boardId, ticketId }) => {
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
  tool(addCommentOp, {
    name: 'comments_add',
    title: 'Add a comment',
    description: 'Comment on a ticket (progress notes, questions, findings).',
    fields: ['content'],
    output: z.object({ id: z.string(), createdAt: z.string() }),
    run: async (ctx, input, { boardId, ticketId }) => {
      const comment = await createComment(ctx, boardId, ticketId, input);
      return { id: comment.id, createdAt: comment.createdAt };
    },
  }),
  tool(logTimeOp, {
    name: 'time_log',
    title: 'Log time',
    description: "Book time on a ticket. An agent's time waits for approval (PENDING) and counts against its weekly cap.",
    fields: ['ticketId', 'durationMinutes', 'description', 'date'],
    extra: { displayId: ticketRef.displayId },
    output: z.object({ id: z.string(), state: z.string(), durationMinutes: z.number(), date: z.string() }),
    run: async (ctx, { displayId, ...input }) => {
      const ticketId = input.ticketId ?? displayId;
      if (!ticketId) throw invalidField('ticketId', 'Name the ticket by ticketId or displayId');
      const entry = await createEntry(ctx, { ...input, ticketId }, 'MCP');
      return { id: entry.id, state: entry.state, durationMinutes: entry.durationMinutes, date: entry.date };
    },
  }),
  tool(searchWikiOp, {
    name: 'wiki_search',
    title: 'Search the wiki',
    description: 'Find wiki pages by words in their title or content (any case), in one space or every space you may view.',
    extra: { query: requiredText(200), spaceId: idParam.optional(), ...paging },
    output: z.object({ hits: z.array(z.object({ spaceId: z.string(), pageId: z.string(), title: z.string(), snippet: z.string() })), ...pageOutput }),
    run: async (ctx, input) => {
      const pages = { page: input.page, limit: input.limit };
      if (input.spaceId) {
        const found = await searchSpace(ctx, input.spaceId, input.query, pages);
        return { hits: found.items.map((hit) => ({ spaceId: hit.spaceId, pageId: hit.id, title: hit.title, snippet: hit.snippet })), total: found.total, page: found.page, totalPages: found.totalPages };
      }
      const found = await searchWiki(ctx, input.query, pages);
      return { hits: found.items.map((hit) => ({ spaceId: hit.space.id, pageId: hit.pageId, title: hit.title, snippet: hit.snippet })), total: found.total, page: found.page, totalPages: found.totalPages };
    },
  }),
  tool(getPageOp, {
    name: 'wiki_get_page',
    title: 'Read a wiki page',
    description: `A wiki page's content from \`offset\`, at most ${groupDigits(WIKI_WINDOW)} characters; \`nextOffset\` reads on.`,
    extra: { spaceId: z.string().max(100), pageId: z.string().max(100), offset: z.number().int().min(0).default(0) },
    output: z.object({ pageId: z.string(), title: z.string(), version: z.number(), contentLength: z.number(), offset: z.number(), nextOffset: z.number().nullable(), content: z.string() }),
    run: async (ctx, input) => {
      const found = await getPage(ctx, input.spaceId, input.pageId);
      if (input.offset > found.content.length) throw invalidField('offset', `The page has ${found.content.length} characters`);
      return pageWindow(found, input.offset);
    },
  }),
  tool(pendingSuggestionsOp, {
    name: 'inbox_show',
    title: 'Show my inbox',
    description:
      "What waits for you: agents' suggested moves (decide with suggestions_decide) and, for approvers, agents' time (time_entries_decide).",
    ui: INBOX_APP_URI,
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
  tool(decideSuggestionOp, {
    name: 'suggestions_decide',
    title: "Decide an agent's suggested move",
    description: "Accept (the ticket moves) or reject an agent's suggestion from inbox_show.",
    extra: { boardId: idParam, suggestionId: idParam, decision: z.enum(['accept', 'reject']) },
    output: z.object({ id: z.string(), state: z.string(), ticketId: z.string() }),
    run: async (ctx, { boardId, suggestionId, decision, ...body }, { ticketId }) => {
      const decide = decision === 'accept' ? acceptSuggestion : rejectSuggestion;
      const decided = await decide(ctx, boardId, ticketId, suggestionId, body);
      return { id: decided.id, state: decided.state, ticketId: decided.ticketId };
    },
  }),
  tool(decideEntryOp, {
    name: 'time_entries_decide',
    title: "Decide an agent's time",
    description: "Approve or reject an agent's pending time from inbox_show.",
    extra: { entryId: idParam, decision: z.enum(['approve', 'reject']) },
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
