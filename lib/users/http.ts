import * as z from 'zod';
import { authenticated, EDGE_THROTTLES, open, originOf, type Routes, onFirstUse } from '../http/routes.js';
import { addressedSlugOf } from '../http/organization-slug.js';
import { idParam, pageQuery, queryBoolean, requiredText, emailAddress, tokenRestrictionsBody } from '../http/validation.js';
import { ROLES } from '../db/entities/index.js';
import { acceptInvitation, createInvitation, createPersonalToken, listInvitations, listPersonalTokens, revokeInvitation, revokePersonalToken, requireSession } from '../identity/index.js';
import { assertBoardsExist } from '../boards/index.js';
import { createUser, getMe, getUser, listUsers, updateUser } from './users.js';
import { createdTokenResult, invitationResult, meResult, organizationBrief, tokenResult, userResult } from './shapes.js';

const email = emailAddress;

/** Routes of the `users` group. */
export const userRoutes: Routes = {
  'GET /api/v1/users/me': authenticated({ scope: 'read', summary: 'Who am I: your user, permissions and organization', result: meResult, handler: (ctx) => getMe(ctx) }),
  'GET /api/v1/users': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List users',
      envelope: 'page',
      result: userResult,
      query: z.strictObject({ ...pageQuery(20, 100), search: z.string().max(200).optional(), includeAgents: queryBoolean.optional() }),
      handler: (ctx, { query }) => listUsers(ctx, query),
    }),
  ),
  'POST /api/v1/users': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Create a user',
      status: 201,
      result: userResult,
      errors: ['CONFLICT'],
      body: z.strictObject({
        name: requiredText(100),
        email,
        password: z.string().min(8, 'At least 8 characters').max(256),
        role: z.enum(ROLES),
        customerId: idParam.optional(),
        permissionGroupIds: z.array(idParam).max(20).optional(),
      }),
      handler: (ctx, { body }) => createUser(ctx, body),
    }),
  ),
  'GET /api/v1/users/{userId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a user',
      result: userResult,
      params: z.object({ userId: idParam }),
      handler: (ctx, { params }) => getUser(ctx, params.userId),
    }),
  ),
  'PATCH /api/v1/users/{userId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update a user',
      result: userResult,
      params: z.object({ userId: idParam }),
      body: z.strictObject({
        name: requiredText(100).optional(),
        role: z.enum(ROLES).optional(),
        isActive: z.boolean().optional(),
        permissionGroupIds: z.array(idParam).min(1).max(20).optional(),
      }),
      handler: (ctx, { params, body }) => updateUser(ctx, params.userId, body),
    }),
  ),
  'GET /api/v1/users/me/tokens': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List your personal access tokens',
      result: z.strictObject({ tokens: z.array(tokenResult) }),
      handler: async (ctx) => {
        requireSession(ctx);
        return listPersonalTokens(ctx);
      },
    }),
  ),
  'POST /api/v1/users/me/tokens': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a personal access token',
      status: 201,
      result: createdTokenResult,
      body: tokenRestrictionsBody,
      handler: async (ctx, { body }) => {
        requireSession(ctx);
        await assertBoardsExist(ctx, body.allowedBoardIds ?? [], 'allowedBoardIds');
        return createPersonalToken(ctx, body);
      },
    }),
  ),
  'DELETE /api/v1/users/me/tokens/{tokenId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Revoke a personal access token',
      status: 204,
      params: z.object({ tokenId: idParam }),
      handler: async (ctx, { params }) => {
        requireSession(ctx);
        await revokePersonalToken(ctx, params.tokenId);
      },
    }),
  ),
  'POST /api/v1/invitations': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Invite a person by e-mail',
      description:
        "Mails the address a link to join the organization (valid 7 days, once) with the role and permission groups given (the role's group unless named). Needs `users:manage`, and the caller must hold what the groups grant; only an administrator invites an administrator. Customers are created with `POST /api/v1/users`. Until someone accepts, the invitation is listed and can be withdrawn. Without a mail service configured, the message waits in the platform operator's outbox.",
      status: 201,
      result: invitationResult,
      errors: ['CONFLICT'],
      body: z.strictObject({
        email,
        role: z.enum(['ADMIN', 'TEAM_MEMBER']).default('TEAM_MEMBER'),
        permissionGroupIds: z.array(idParam).max(20).optional(),
      }),
      handler: (ctx, { body, request }) => createInvitation(ctx, body, originOf(request)),
    }),
  ),
  'GET /api/v1/invitations': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Invitations not yet accepted',
      description: 'Pending invitations (neither accepted nor expired), newest first. Needs `users:manage`.',
      envelope: 'data',
      result: z.array(invitationResult),
      handler: (ctx) => listInvitations(ctx),
    }),
  ),
  'DELETE /api/v1/invitations/{invitationId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Withdraw an invitation',
      description: 'Its link stops working at once. Needs `users:manage`.',
      status: 204,
      params: z.object({ invitationId: idParam }),
      handler: (ctx, { params }) => revokeInvitation(ctx, params.invitationId),
    }),
  ),
  'POST /api/v1/invitations/accept': onFirstUse(() =>
    open({
      edgeThrottle: EDGE_THROTTLES.signUp,
      summary: 'Accept an invitation: choose a name and password, and sign in',
      description:
        "`token` is the invitation link's `token` parameter. The person joins with the e-mail address and permission groups of the invitation and is signed in (a session, as sign-in gives). A link works once and for 7 days; one that is not valid any more answers 400 `VALIDATION_ERROR` on `token`.",
      status: 201,
      result: z.strictObject({ organization: organizationBrief, user: userResult, token: z.string().meta({ description: 'Session token (a JWT); send it as `Authorization: Bearer …`' }), expiresIn: z.number().int().meta({ description: 'Seconds until the session expires' }) }).meta({ id: 'AcceptedInvitation' }),
      errors: ['NOT_FOUND', 'CONFLICT'],
      body: z.strictObject({ token: z.string().min(1).max(200), name: requiredText(100), password: z.string().min(8, 'At least 8 characters').max(256, 'At most 256 characters') }),
      handler: (ctx, { body, request }) => acceptInvitation(ctx, addressedSlugOf(request.headers), body),
    }),
  ),
};
