import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';
import { statusResult } from '../statuses/index.js';

/** A board with its team assignments, features, direct members and customers. */
export const boardResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      prefix: z.string().meta({ description: 'Upper-case prefix of its tickets’ display ids (`PLAT` → `PLAT-12`)' }),
      description: z.string(),
      isArchived: z.boolean(),
      createdAt: timestamp,
      updatedAt: timestamp,
      teams: z.array(z.strictObject({ id: anId, name: z.string(), color: z.string() })).meta({ description: 'Empty for customer users' }),
      features: z.strictObject({ milestonesAndReleases: z.boolean(), explainableStatus: z.boolean() }),
      memberIds: z.array(anId).meta({ description: 'Direct members; empty for customer users' }),
      customerIds: z.array(anId).meta({ description: "A customer user sees only their own customer" }),
      dispatchPaused: z.boolean().meta({ description: "While true, claim-next passes this board's tickets over and named claims answer 409 DISPATCH_PAUSED" }),
      monthlyBudgetMicros: z.number().int().nullable().meta({ description: 'Spend allowed per calendar month on this board, US dollars × 10⁶; null: none (and for customer users)' }),
    })
    .meta({ id: 'Board' }),
);

/** An organization status with whether this board shows it. */
export const boardStatusResult = z.lazy(() =>
  statusResult.unwrap().extend({ enabled: z.boolean() }).meta({ id: 'BoardStatus' }),
);

/** The moves a board allows: from a status, to these; a status without a rule may move anywhere. */
export const transitionRulesResult = z.lazy(() =>
  z
    .strictObject({ rules: z.array(z.strictObject({ fromStatusId: anId, toStatusIds: z.array(anId) })) })
    .meta({ id: 'TransitionRules' }),
);
