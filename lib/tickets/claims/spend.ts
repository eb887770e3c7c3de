import { type AppError, forbidden, invalidField } from '../../core/errors.js';
import type { DomainContext } from '../../db/context.js';
import { SPEND_SHARDS, type BoardItem, type SpendDayItem, type SpendDimension, type SpendMonthItem, type TicketItem } from '../../db/entities/index.js';
import { batchGetMixed } from '../../db/batch.js';
import { db } from '../../db/service.js';
import { isConditionFailure, transact, type TransactionEntities, type TransactionItem } from '../../db/transact.js';
import { eventPuts, newEventRecord } from '../../events/index.js';
import { log } from '../../core/telemetry.js';
import { utcDay } from '../../activity/index.js';
import { requirePermission } from '../../organizations/index.js';
import { pageOf } from '../../core/pages.js';

/**
 * Spend (docs/fleet-control.md): what agents' runs cost, reported with a run (`usage` on a
 * report or a heartbeat) and counted exactly in that write's own transaction: on the ticket
 * item (version-guarded), in the day items of each grouping and in the month items budgets are
 * judged by (ADD upserts). Nothing is ever recounted from the reports, so racing reports and a
 * crash at any point leave totals equal to the sum of the reports that were written.
 */

/** A run's usage as an agent reports it: US dollars × 10⁶ (integers), tokens by kind, the model. */
export interface UsageInput {
  model?: string | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cacheReadTokens?: number | undefined;
  costMicros: number;
}

/** The share of a budget whose first crossing in a month sends `budget.warning`. */
export const BUDGET_WARNING_SHARE = 0.8;

const month = (date: Date): string => date.toISOString().slice(0, 7);
const shard = (): number => Math.floor(Math.random() * SPEND_SHARDS);

/**
 * What one report's (`run`) or heartbeat's usage adds to the write of its ticket: the ticket's
 * totals (fields of the ticket item itself), and the day and month items (related updates).
 * The caller's own activity counter of the day (its `costMicros`) is added by the caller, in
 * the one update it makes of that item (a transaction touches an item once).
 */
export function usageEffects(ctx: DomainContext, ticket: TicketItem, board: Pick<BoardItem, 'name'>, usage: UsageInput, run: boolean, now: Date) {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const counters = { costMicros: usage.costMicros, inputTokens: input, outputTokens: output, cacheReadTokens: usage.cacheReadTokens ?? 0, runs: run ? 1 : 0 };
  const fields: Partial<TicketItem> = {
    spendCostMicros: (ticket.spendCostMicros ?? 0) + usage.costMicros,
    spendInputTokens: (ticket.spendInputTokens ?? 0) + input,
    spendOutputTokens: (ticket.spendOutputTokens ?? 0) + output,
    spendRuns: (ticket.spendRuns ?? 0) + (run ? 1 : 0),
  };
  const day = utcDay(now);
  const groups: [SpendDimension, string, string | undefined][] = [
    ['agent', ctx.actor.userId, ctx.actor.name],
    ['board', ticket.boardId, board.name],
    ['milestone', ticket.milestoneId ?? 'none', undefined],
    ['day', '-', undefined],
  ];
  const related = (e: TransactionEntities): TransactionItem[] => [
    ...groups.map(([dimension, id, name]) => {
      const update = e.spendDay.update({ orgId: ticket.orgId, dimension, day, key: `${id}#${shard()}` }).add(counters);
      return (name ? update.set({ name }) : update).commit();
    }),
    // Budgets are judged per agent and per board: an agent's own spend, the board's from everyone.
    ...(ctx.actor.isAgent ? [e.spendMonth.update({ orgId: ticket.orgId, scope: 'agent', subjectId: ctx.actor.userId, month: month(now) }).add({ costMicros: usage.costMicros }).commit()] : []),
    e.spendMonth.update({ orgId: ticket.orgId, scope: 'board', subjectId: ticket.boardId, month: month(now) }).add({ costMicros: usage.costMicros }).commit(),
  ];
  return { fields, related };
}

/** A budget that may be judged: whose, and how much a month. */
interface Budget {
  scope: 'agent' | 'board';
  id: string;
  budgetMicros: number;
}

/** The calling agent's own budget, if it has one. */
function agentBudgetOf(ctx: DomainContext): Budget[] {
  const budgetMicros = ctx.actor.isAgent ? ctx.actor.agent?.monthlyBudgetMicros : null;
  return budgetMicros === null || budgetMicros === undefined ? [] : [{ scope: 'agent', id: ctx.actor.userId, budgetMicros }];
}

/** A board's budget, if it has one. */
const boardBudgetOf = (board: Pick<BoardItem, 'boardId' | 'monthlyBudgetMicros'>): Budget[] =>
  board.monthlyBudgetMicros === undefined ? [] : [{ scope: 'board', id: board.boardId, budgetMicros: board.monthlyBudgetMicros }];

/** The budgets covering a write of this board by the caller (the agent's own, the board's). */
const budgetsOf = (ctx: DomainContext, board: Pick<BoardItem, 'boardId' | 'monthlyBudgetMicros'>): Budget[] => [...agentBudgetOf(ctx), ...boardBudgetOf(board)];

/** This month's spend of each budget (one BatchGetItem; none when there is no budget). */
async function spentOf(ctx: DomainContext, budgets: Budget[]): Promise<(Budget & { spentMicros: number; warnedAt?: string | undefined })[]> {
  if (budgets.length === 0) return [];
  const at = month(ctx.clock.now());
  const found = (await batchGetMixed(
    budgets.map((budget) => ({ entity: db().entities.spendMonth, key: { orgId: ctx.org.orgId, scope: budget.scope, subjectId: budget.id, month: at } })),
  )) as (SpendMonthItem | undefined)[];
  return budgets.map((budget, index) => ({ ...budget, spentMicros: found[index]?.costMicros ?? 0, warnedAt: found[index]?.warnedAt }));
}

const exhausted = (budget: Budget & { spentMicros: number }): AppError =>
  forbidden(`The ${budget.scope}'s budget for this month is spent`, 'BUDGET_EXHAUSTED', { scope: budget.scope, id: budget.id, spentMicros: budget.spentMicros, budgetMicros: budget.budgetMicros });

/** A new lease for an agent on this board: refused (403 BUDGET_EXHAUSTED) once the agent's or the board's month budget is spent. */
export async function assertBudgetLeft(ctx: DomainContext, board: BoardItem): Promise<void> {
  if (!ctx.actor.isAgent) return;
  const spent = (await spentOf(ctx, budgetsOf(ctx, board))).find((budget) => budget.spentMicros >= budget.budgetMicros);
  if (spent) throw exhausted(spent);
}

/**
 * For claim-next: whether the agent's own budget is spent, and which of these boards' budgets
 * are (their tickets are passed over). One BatchGetItem, only when some budget exists.
 */
export async function spentBudgets(ctx: DomainContext, boards: BoardItem[]): Promise<{ agent: boolean; boardIds: Set<string> }> {
  const budgets = [...agentBudgetOf(ctx), ...boards.flatMap(boardBudgetOf)];
  const spent = (await spentOf(ctx, budgets)).filter((budget) => budget.spentMicros >= budget.budgetMicros);
  return { agent: spent.some((budget) => budget.scope === 'agent'), boardIds: new Set(spent.filter((budget) => budget.scope === 'board').map((budget) => budget.id)) };
}

/**
 * After a write that added spend: the first time this month a budget passed 80 %, one
 * `budget.warning` (the month item's `warnedAt` is set under a condition in the event's own
 * transaction, so racing reports send it once). Runs after the spend is committed; a failure
 * here is logged, never answered (the report stands). A crash between the two loses the
 * warning, never the spend.
 */
export async function warnOfBudgets(ctx: DomainContext, board: BoardItem): Promise<void> {
  const budgets = budgetsOf(ctx, board);
  if (budgets.length === 0) return;
  try {
    for (const budget of await spentOf(ctx, budgets)) {
      if (budget.warnedAt || budget.spentMicros < budget.budgetMicros * BUDGET_WARNING_SHARE) continue;
      const at = ctx.clock.now();
      const record = newEventRecord(ctx.org.orgId, ctx.clock, {
        type: 'budget.warning',
        subjectId: `budget:${budget.scope}:${budget.id}`,
        data: { scope: budget.scope, id: budget.id, spentMicros: budget.spentMicros, budgetMicros: budget.budgetMicros, month: month(at) },
      });
      try {
        await transact((e) => [
          e.spendMonth
            .patch({ orgId: ctx.org.orgId, scope: budget.scope, subjectId: budget.id, month: month(at) })
            .set({ warnedAt: at.toISOString() })
            .where((attr, op) => op.notExists(attr.warnedAt))
            .commit(),
          ...eventPuts(e, [record]),
        ]);
      } catch (error) {
        // Another report sent it first.
        if (!isConditionFailure(error)) throw error;
      }
    }
  } catch (error) {
    log.error('budget warning failed', { orgId: ctx.org.orgId, boardId: board.boardId }, error);
  }
}

/** One group's totals in `GET /api/v1/spend`. */
export interface SpendGroup {
  id: string;
  name: string | null;
  costMicros: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  runs: number;
}

/**
 * GET /api/v1/spend: the organization's spend from `from` through `to` (UTC days, at most 366),
 * grouped by agent, board, milestone or day; exact totals, biggest first (days in order). One
 * Query of that grouping's days in range: its cost follows the range and the groups, never the
 * reports. Needs `agents:manage` (the people who answer for the agents).
 */
export async function listSpend(ctx: DomainContext, query: { groupBy: SpendDimension; from: string; to: string; page: number; limit: number }) {
  requirePermission(ctx, 'agents:manage');
  if (query.from > query.to) throw invalidField('from', 'Must not be after `to`');
  if (Date.parse(query.to) - Date.parse(query.from) > 366 * 86_400_000) throw invalidField('to', 'At most 366 days after `from`');
  const { data } = await db()
    .entities.spendDay.query.byDimension({ orgId: ctx.org.orgId, dimension: query.groupBy })
    .between({ day: query.from }, { day: `${query.to}~` })
    .go({ pages: 'all' });
  const groups = new Map<string, SpendGroup>();
  for (const item of data as SpendDayItem[]) {
    const id = query.groupBy === 'day' ? item.day : item.key.slice(0, item.key.lastIndexOf('#'));
    const group = groups.get(id) ?? { id, name: null, costMicros: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, runs: 0 };
    group.costMicros += item.costMicros ?? 0;
    group.inputTokens += item.inputTokens ?? 0;
    group.outputTokens += item.outputTokens ?? 0;
    group.cacheReadTokens += item.cacheReadTokens ?? 0;
    group.runs += item.runs ?? 0;
    if (item.name) group.name = item.name;
    groups.set(id, group);
  }
  const sorted = [...groups.values()].sort((a, b) => (query.groupBy === 'day' ? a.id.localeCompare(b.id) : b.costMicros - a.costMicros || a.id.localeCompare(b.id)));
  const totals = sorted.reduce((sum, group) => ({ costMicros: sum.costMicros + group.costMicros, inputTokens: sum.inputTokens + group.inputTokens, outputTokens: sum.outputTokens + group.outputTokens, runs: sum.runs + group.runs }), { costMicros: 0, inputTokens: 0, outputTokens: 0, runs: 0 });
  return { page: pageOf(sorted, query.page, query.limit), totals };
}
