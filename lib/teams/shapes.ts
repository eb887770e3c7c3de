import * as z from 'zod';
import { anId, timestamp } from '../core/shapes.js';

export const teamResult = z.lazy(() =>
  z
    .strictObject({ id: anId, name: z.string(), color: z.string(), memberCount: z.number().int().min(0), createdAt: timestamp })
    .meta({ id: 'Team' }),
);

/** A team with its members (by name). */
export const teamWithMembersResult = z.lazy(() =>
  teamResult
    .unwrap()
    .extend({ members: z.array(z.strictObject({ id: anId, name: z.string(), email: z.string() })) })
    .meta({ id: 'TeamWithMembers' }),
);
