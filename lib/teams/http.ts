import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { hexColor, idParam, pageQuery, requiredText } from '../http/validation.js';
import { MAX_MEMBERS_ON_CREATE, addTeamMember, createTeam, deleteTeam, getTeam, listTeams, removeTeamMember, updateTeam } from './teams.js';
import { teamResult, teamWithMembersResult } from './shapes.js';

const teamPath = z.object({ teamId: idParam });

/** Routes of the `teams` group (the API reference). */
export const teamsRoutes: Routes = {
  'GET /api/v1/teams': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'List teams',
      result: teamResult,
      envelope: 'page',
      query: z.strictObject({ ...pageQuery(20, 100), search: z.string().max(100, 'At most 100 characters').optional() }),
      handler: (ctx, { query }) => listTeams(ctx, query),
    }),
  ),
  'POST /api/v1/teams': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a team',
      result: teamResult,
      errors: ['PLAN_FEATURE_REQUIRED'],
      status: 201,
      body: z.strictObject({
        name: requiredText(100),
        color: hexColor.optional(),
        memberIds: z.array(idParam).max(MAX_MEMBERS_ON_CREATE, `At most ${MAX_MEMBERS_ON_CREATE} members on create`).optional(),
      }),
      handler: (ctx, { body }) => createTeam(ctx, body),
    }),
  ),
  'GET /api/v1/teams/{teamId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a team with its members',
      result: teamWithMembersResult,
      params: teamPath,
      handler: (ctx, { params }) => getTeam(ctx, params.teamId),
    }),
  ),
  'PATCH /api/v1/teams/{teamId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Update a team',
      result: teamResult,
      errors: ['PLAN_FEATURE_REQUIRED'],
      params: teamPath,
      body: z.strictObject({ name: requiredText(100).optional(), color: hexColor.optional() }),
      handler: (ctx, { params, body }) => updateTeam(ctx, params.teamId, body),
    }),
  ),
  'DELETE /api/v1/teams/{teamId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a team',
      errors: ['PLAN_FEATURE_REQUIRED'],
      status: 204,
      params: teamPath,
      handler: (ctx, { params }) => deleteTeam(ctx, params.teamId),
    }),
  ),
  'POST /api/v1/teams/{teamId}/members': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Add a member to a team',
      result: teamWithMembersResult,
      errors: ['PLAN_FEATURE_REQUIRED'],
      // 200: the response is the updated team, not a new resource.
      params: teamPath,
      body: z.strictObject({ userId: idParam }),
      handler: (ctx, { params, body }) => addTeamMember(ctx, params.teamId, body.userId),
    }),
  ),
  'DELETE /api/v1/teams/{teamId}/members/{userId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Remove a member from a team',
      status: 204,
      params: z.object({ teamId: idParam, userId: idParam }),
      handler: (ctx, { params }) => removeTeamMember(ctx, params.teamId, params.userId),
    }),
  ),
};
