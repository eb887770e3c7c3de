import * as z from 'zod';
import { authenticated, type Routes, onFirstUse } from '../http/routes.js';
import { idParam, optionalText, pageQuery, requiredText } from '../http/validation.js';
import { timestamp } from '../core/shapes.js';
import { ticketResult } from '../tickets/index.js';
import { attachMilestone, attachTicket, createRelease, deleteRelease, detachMilestone, detachTicket, getRelease, listReleaseTickets, listReleases, updateRelease } from './releases.js';
import { releaseResult } from './shapes.js';

const boardParams = z.object({ boardId: idParam });
const releaseParams = z.object({ boardId: idParam, releaseId: idParam });
const FEATURE = ['FEATURE_DISABLED'] as const;
/** One create is one transaction: the release and a check per milestone. */
const MAX_MILESTONES_ON_CREATE = 50;

const releaseFields = {
  version: optionalText(50).nullable().optional(),
  description: optionalText(5000).nullable().optional(),
  releaseDate: timestamp.nullable().optional(),
};

/** Routes of the `releases` group (docs/features.md, Milestones and releases); every route needs the board's Milestones & Releases feature. */
export const releasesRoutes: Routes = {
  'GET /api/v1/boards/{boardId}/releases': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List a board's releases",
      description: 'Newest release date first; releases without a date last.',
      result: z.array(releaseResult),
      errors: FEATURE,
      params: boardParams,
      handler: (ctx, { params }) => listReleases(ctx, params.boardId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/releases': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Create a release',
      description: '`milestoneIds` attaches live milestones of the same board at once (another board\'s or an unknown one → 400).',
      status: 201,
      result: releaseResult,
      errors: FEATURE,
      params: boardParams,
      body: z.strictObject({
        name: requiredText(200),
        ...releaseFields,
        milestoneIds: z.array(idParam).max(MAX_MILESTONES_ON_CREATE).optional(),
      }),
      handler: (ctx, { params, body }) => createRelease(ctx, params.boardId, body),
    }),
  ),
  'GET /api/v1/boards/{boardId}/releases/{releaseId}': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: 'Get a release',
      result: releaseResult,
      errors: FEATURE,
      params: releaseParams,
      handler: (ctx, { params }) => getRelease(ctx, params.boardId, params.releaseId),
    }),
  ),
  'PATCH /api/v1/boards/{boardId}/releases/{releaseId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Change a release',
      description: '`null` (or an empty string) clears `version`, `description` or `releaseDate`.',
      result: releaseResult,
      errors: FEATURE,
      params: releaseParams,
      body: z.strictObject({ name: requiredText(200).optional(), ...releaseFields }),
      handler: (ctx, { params, body }) => updateRelease(ctx, params.boardId, params.releaseId, body),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/releases/{releaseId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Delete a release; its tickets and milestones are detached, not deleted',
      status: 204,
      errors: FEATURE,
      params: releaseParams,
      handler: (ctx, { params }) => deleteRelease(ctx, params.boardId, params.releaseId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/releases/{releaseId}/milestones': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Attach a milestone to a release',
      description: 'A live milestone of the same board (otherwise 400). Attaching one already attached changes nothing.',
      result: releaseResult,
      errors: FEATURE,
      params: releaseParams,
      body: z.strictObject({ milestoneId: idParam }),
      handler: (ctx, { params, body }) => attachMilestone(ctx, params.boardId, params.releaseId, body.milestoneId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/releases/{releaseId}/milestones/{milestoneId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Detach a milestone from a release',
      description: '404 when the release does not show that milestone.',
      status: 204,
      errors: FEATURE,
      params: z.object({ boardId: idParam, releaseId: idParam, milestoneId: idParam }),
      handler: (ctx, { params }) => detachMilestone(ctx, params.boardId, params.releaseId, params.milestoneId),
    }),
  ),
  'POST /api/v1/boards/{boardId}/releases/{releaseId}/tickets': onFirstUse(() =>
    authenticated({
      scope: 'write',
      summary: 'Attach a ticket to a release',
      description: 'A live ticket of the same board (otherwise 400). Attaching one already attached changes nothing. A ticket leaves its releases when it is deleted or moved to another board.',
      result: releaseResult,
      errors: FEATURE,
      params: releaseParams,
      body: z.strictObject({ ticketId: idParam }),
      handler: (ctx, { params, body }) => attachTicket(ctx, params.boardId, params.releaseId, body.ticketId),
    }),
  ),
  'DELETE /api/v1/boards/{boardId}/releases/{releaseId}/tickets/{ticketId}': onFirstUse(() =>
    authenticated({
      scope: 'write',
      // A release's membership, not a write of the ticket: no fence; the ticket is named by its id only.
      fence: false,
      ticketRefs: [],
      summary: 'Detach a ticket from a release',
      description: '404 when the ticket is not attached.',
      status: 204,
      errors: FEATURE,
      params: z.object({ boardId: idParam, releaseId: idParam, ticketId: idParam }),
      handler: (ctx, { params }) => detachTicket(ctx, params.boardId, params.releaseId, params.ticketId),
    }),
  ),
  'GET /api/v1/boards/{boardId}/releases/{releaseId}/tickets': onFirstUse(() =>
    authenticated({
      scope: 'read',
      summary: "List a release's tickets",
      description: 'In ticket id order, paginated, with an exact total (equal to the release\'s `ticketCount`).',
      result: ticketResult,
      envelope: 'page',
      errors: FEATURE,
      params: releaseParams,
      query: z.strictObject(pageQuery(20, 100)),
      handler: (ctx, { params, query }) => listReleaseTickets(ctx, params.boardId, params.releaseId, query),
    }),
  ),
};
