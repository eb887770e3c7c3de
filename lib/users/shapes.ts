import * as z from 'zod';
import { PLANS, ROLES } from '../db/entities/index.js';
import { anId, timestamp } from '../core/shapes.js';

/** A user (person or agent) as the API shows it; never a password hash. */
export const userResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      email: z.string(),
      role: z.enum(ROLES),
      isActive: z.boolean(),
      isAgent: z.boolean(),
      customerId: anId.nullable(),
      permissionGroupIds: z.array(anId),
      teamIds: z.array(anId),
      lastSeenAt: timestamp.nullable(),
      createdAt: timestamp,
      updatedAt: timestamp,
    })
    .meta({ id: 'User' }),
);

/** The organization in brief, as sign-up and /users/me show it. */
export const organizationBrief = z.strictObject({ id: anId, slug: z.string(), name: z.string(), plan: z.enum(PLANS) });

/** The caller: their user record, effective permissions (`*` for administrators) and organization. */
export const meResult = z.lazy(() =>
  userResult
    .unwrap()
    .extend({ permissions: z.array(z.string()), organization: organizationBrief })
    .meta({ id: 'Me' }),
);

/** An access token as listed: never the secret, never its hash. */
export const tokenResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      name: z.string(),
      tokenPrefix: z.string().meta({ description: 'The first characters of the token, to recognize it' }),
      expiresAt: timestamp.nullable(),
      lastUsedAt: timestamp.nullable(),
      createdAt: timestamp,
      allowedBoardIds: z.array(anId).meta({ description: 'Empty: every board the owner can see' }),
      readOnly: z.boolean(),
      denyDelete: z.boolean(),
      clientLabel: z.string().nullable(),
    })
    .meta({ id: 'AccessToken' }),
);

/** A token just created: the only response that carries the secret. */
export const createdTokenResult = z.lazy(() =>
  tokenResult
    .unwrap()
    .extend({ token: z.string().meta({ description: 'The secret; shown once, store it now' }) })
    .meta({ id: 'CreatedAccessToken' }),
);

/** An invitation waiting to be accepted: never its link. */
export const invitationResult = z.lazy(() =>
  z
    .strictObject({
      id: anId,
      email: z.string(),
      role: z.enum(ROLES),
      permissionGroupIds: z.array(anId),
      invitedBy: z.strictObject({ id: anId, name: z.string() }),
      expiresAt: timestamp,
      createdAt: timestamp,
    })
    .meta({ id: 'Invitation' }),
);
