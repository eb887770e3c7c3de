import * as z from 'zod';
import { GROUP_TYPES, PLANS } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';
import { FEATURES } from './plans.js';

/** The organization: plan, the features it includes, and its settings. */
/** The organization's dispatch breaker. */
export const dispatchResult = z.lazy(() =>
  z
    .strictObject({
      paused: z.boolean().meta({ description: 'While true, no agent is given new work: claim-next answers 204 with `X-Dispatch-Paused: organization`' }),
      reason: z.string().nullable(),
      pausedBy: z.strictObject({ id: anId, name: z.string() }).nullable(),
      pausedAt: timestamp.nullable(),
    })
    .meta({ id: 'Dispatch' }),
);

export const organizationResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      slug: z.string(),
      name: z.string(),
      plan: z.enum(PLANS),
      features: z.array(z.enum(FEATURES)).meta({ description: 'What the plan includes' }),
      settings: z.strictObject({
        timeTrackingEnabled: z.boolean(),
        defaultTimeFactor: z.number().min(1).max(10),
        defaultMaxConcurrentClaims: z.number().int().min(1).max(50),
      }),
      dispatch: dispatchResult,
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'Organization' }),
);

/** A permission group: a named set of permissions its members hold. */
export const permissionGroupResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      color: z.string(),
      type: z.enum(GROUP_TYPES),
      permissions: z.array(z.string()),
      isSystem: z.boolean().meta({ description: 'Created with the organization; cannot be deleted' }),
    })
    .meta({ id: 'PermissionGroup' }),
);
