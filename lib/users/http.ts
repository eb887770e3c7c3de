import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, pageQuery, queryBoolean, requiredText, emailAddress, tokenRestrictionsBody } from '../http/validation.js';
import { ROLES } from '../db/entities/index.js';
import { createPersonalToken, listPersonalTokens, revokePersonalToken, requireSession } from '../identity/index.js';
import { assertBoardsExist } from '../boards/index.js';
import { createUser, getMe, getUser, listUsers, updateUser } from './users.js';
import { createdTokenResult, meResult, tokenResult, userResult } from './shapes.js';

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
      errors: { 409: ['CONFLICT'] },
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
};
