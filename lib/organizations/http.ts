import * as z from 'zod';
import { authenticated, platform, type Routes, onFirstUse } from '../http/routes.js';
import { hexColor, idParam, pageQuery, requiredText } from '../http/validation.js';
import { outboxMailResult } from '../mail/index.js';
import { GROUP_TYPES, PLANS } from '../db/entities/index.js';
import { getOrganization, organizationOutbox, setPlan, updateOrganization } from './organization.js';
import { createGroup, deleteGroup, getGroup, listGroups, updateGroup } from './permission-groups.js';
import { dispatchResult, organizationResult, permissionGroupResult } from './shapes.js';
import { setOrganizationDispatch } from './dispatch.js';

const groupParams = z.object({ groupId: idParam });

/** Routes of the `organization` group: settings, permission groups and the platform operator's plan endpoint. */
export const organizationRoutes: Routes = {
  'GET /api/v1/organization': authenticated({ scope: 'read', summary: 'Get the organization', result: organizationResult, handler: async (ctx) => getOrganization(ctx) }),
  'PATCH /api/v1/organization': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update the organization\'s name and settings',
      result: organizationResult,
      body: z.strictObject({
        name: requiredText(100).optional(),
        settings: z
          .strictObject({
            timeTrackingEnabled: z.boolean().optional(),
            defaultTimeFactor: z.number().min(1).max(10).optional(),
            defaultMaxConcurrentClaims: z.number().int().min(1).max(50).optional(),
          })
          .optional(),
      }),
      handler: (ctx, { body }) => updateOrganization(ctx, body),
    }),
  ),
  'PUT /api/v1/organization/dispatch': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: "Throw or lift the organization's dispatch breaker",
      description:
        'While paused, claim-next gives no agent new work (204 with `X-Dispatch-Paused: organization`) and a named claim answers 409 DISPATCH_PAUSED. ' +
        'Leases already held, their heartbeats and releases, and every other write go on; lifting it restores the ready queue exactly as it was. Needs `agents:manage`.',
      result: dispatchResult,
      body: z.strictObject({ paused: z.boolean(), reason: z.string().trim().min(1).max(500).optional() }),
      handler: (ctx, { body }) => setOrganizationDispatch(ctx, body),
    }),
  ),
  'GET /api/v1/permission-groups': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'List permission groups',
      envelope: 'data',
      result: z.array(permissionGroupResult), handler: (ctx) => listGroups(ctx) }),
  ),
  'POST /api/v1/permission-groups': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Create a permission group',
      status: 201,
      result: permissionGroupResult,
      errors: ['CONFLICT'],
      body: z.strictObject({
        name: requiredText(100),
        color: hexColor,
        type: z.enum(GROUP_TYPES).default('INTERNAL'),
        permissions: z.array(z.string().max(100)).max(100),
      }),
      handler: (ctx, { body }) => createGroup(ctx, body),
    }),
  ),
  'GET /api/v1/permission-groups/{groupId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Get a permission group',
      result: permissionGroupResult,
      params: groupParams,
      handler: (ctx, { params }) => getGroup(ctx, params.groupId),
    }),
  ),
  'PATCH /api/v1/permission-groups/{groupId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Update a permission group',
      result: permissionGroupResult,
      errors: ['CONFLICT'],
      params: groupParams,
      body: z.strictObject({
        name: requiredText(100).optional(),
        color: hexColor.optional(),
        permissions: z.array(z.string().max(100)).max(100).optional(),
      }),
      handler: (ctx, { params, body }) => updateGroup(ctx, params.groupId, body),
    }),
  ),
  'DELETE /api/v1/permission-groups/{groupId}': onFirstUse(() =>
    authenticated({
      scope: 'admin',
      summary: 'Delete a permission group',
      errors: ['CONFLICT'],
      status: 204,
      params: groupParams,
      handler: (ctx, { params }) => deleteGroup(ctx, params.groupId),
    }),
  ),
  'PATCH /api/v1/platform/organizations/{slug}': onFirstUse(() =>
    platform({
      summary: 'Set an organization\'s plan (platform operator)',
      result: organizationResult,
      params: z.object({ slug: z.string().min(1).max(40) }),
      body: z.strictObject({ plan: z.enum(PLANS) }),
      handler: (ctx, { params, body }) => setPlan(ctx, params.slug, body.plan),
    }),
  ),
  'GET /api/v1/platform/organizations/{slug}/outbox': onFirstUse(() =>
    platform({
      summary: "Mail the service kept for an organization (platform operator)",
      description:
        'While no mail service is configured (no `mailFrom` in the stack; always under `npm start`), invitations and password resets are not sent but kept here for 7 days, newest first, links included. With SES configured the outbox stays empty.',
      envelope: 'page',
      result: outboxMailResult,
      params: z.object({ slug: z.string().min(1).max(40) }),
      query: z.strictObject(pageQuery(20, 100)),
      handler: (_ctx, { params, query }) => organizationOutbox(params.slug, query),
    }),
  ),
};
