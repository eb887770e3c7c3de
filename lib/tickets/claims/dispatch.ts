import type { AppError } from '../../core/errors.js';
import { ClaimRefused } from './refusals.js';
import type { DomainContext } from '../../db/context.js';
import type { BoardItem } from '../../db/entities/index.js';
import { organizationDispatchPaused } from '../../organizations/index.js';

/**
 * The dispatch breaker (docs/fleet-control.md): what stops new work reaching agents, by scope.
 * `organization` and `agent` stop claim-next altogether; a paused `board` is passed over (work on
 * other boards is still taken); `budget` is a board or agent whose month's spend reached its
 * budget. Nothing is taken out of the ready queue: a pause filters what is read, so lifting it
 * restores exactly what was.
 */
export type DispatchScope = 'organization' | 'agent' | 'board' | 'budget';

/** Whether the caller may be given no new work at all: the organization's breaker, then its own. */
export function callerDispatchPause(ctx: DomainContext): 'organization' | 'agent' | undefined {
  if (organizationDispatchPaused(ctx.org)) return 'organization';
  if (ctx.actor.agent?.dispatchPaused) return 'agent';
  return undefined;
}

export const dispatchPaused = (scope: DispatchScope): AppError =>
  new ClaimRefused('DISPATCH_PAUSED', scope === 'budget' ? 'Dispatch is paused' : `Dispatch is paused for this ${scope}`, { scope });

/** A named claim of a new lease is refused while any breaker covering it is thrown (a lease already held is renewed). */
export function assertDispatchOpen(ctx: DomainContext, board: BoardItem): void {
  const scope = callerDispatchPause(ctx) ?? (board.dispatchPaused ? 'board' : undefined);
  if (scope) throw dispatchPaused(scope);
}
