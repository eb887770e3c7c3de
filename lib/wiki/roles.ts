import type { DomainContext } from '../db/context.js';
import type { BoardItem, Role, WikiRole, WikiSpaceItem } from '../db/entities/index.js';
import { membershipGrantsAccess } from '../boards/index.js';

/*
 * Who may do what in a wiki space (docs/features.md, Wiki). One function,
 * `wikiAccess`, answers it for the caller and for every user `effective-members` lists.
 *
 * - Administrators manage every space.
 * - Customer users view the published pages of a space linked to a board of their customer.
 * - Everyone else has a group role from their permission groups: `manage` with wiki:manage,
 *   `edit` with wiki:edit, `view` with wiki:view, none without any of them. Then:
 *   - INHERIT_BOARD: the group role, for those who may see the linked board (with no board
 *     linked: every internal user of the organization);
 *   - MANAGE_SEPARATE: the role the space's own member list gives them (any wiki permission
 *     is needed to hold one).
 */

export interface WikiSubject {
  userId: string;
  role: Role;
  customerId: string | null;
  teamIds: ReadonlySet<string> | readonly string[];
  permissions: ReadonlySet<string>;
}

export const WIKI_ACCESS_SOURCES = ['ADMIN', 'SPACE_MEMBER', 'BOARD_MEMBER', 'ORGANIZATION', 'CUSTOMER'] as const;
export type WikiAccessSource = (typeof WIKI_ACCESS_SOURCES)[number];

export interface WikiAccess {
  role: WikiRole | null;
  /** Customer users see only published pages. */
  publishedOnly: boolean;
  source: WikiAccessSource | null;
}

const RANK: Record<WikiRole, number> = { view: 1, edit: 2, manage: 3 };
const NONE: WikiAccess = { role: null, publishedOnly: false, source: null };

/** At least `needed`? */
export const roleAllows = (role: WikiRole | null, needed: WikiRole): boolean => role !== null && RANK[role] >= RANK[needed];

/** The role a user's permission groups give (the highest of wiki:manage, wiki:edit, wiki:view). */
export function groupRole(permissions: ReadonlySet<string>): WikiRole | null {
  if (permissions.has('wiki:manage')) return 'manage';
  if (permissions.has('wiki:edit')) return 'edit';
  if (permissions.has('wiki:view')) return 'view';
  return null;
}

/** The space's member list (MANAGE_SEPARATE): user id → role. */
export const membersOf = (space: WikiSpaceItem): Record<string, WikiRole> => (space.members ?? {}) as Record<string, WikiRole>;

/** A user's access to a space; `board` is the space's linked board as read (undefined when none or gone). */
export function wikiAccess(subject: WikiSubject, space: WikiSpaceItem, board: BoardItem | undefined): WikiAccess {
  if (subject.role === 'ADMIN') return { role: 'manage', publishedOnly: false, source: 'ADMIN' };
  const linked = space.boardId && board && !board.isDeleted ? board : undefined;
  if (subject.role === 'CUSTOMER') {
    return linked && membershipGrantsAccess(subject, linked) ? { role: 'view', publishedOnly: true, source: 'CUSTOMER' } : NONE;
  }
  const group = groupRole(subject.permissions);
  if (!group) return NONE;
  if (space.memberMode === 'MANAGE_SEPARATE') {
    const assigned = membersOf(space)[subject.userId];
    return assigned ? { role: assigned, publishedOnly: false, source: 'SPACE_MEMBER' } : NONE;
  }
  if (!space.boardId) return { role: group, publishedOnly: false, source: 'ORGANIZATION' };
  return linked && membershipGrantsAccess(subject, linked) ? { role: group, publishedOnly: false, source: 'BOARD_MEMBER' } : NONE;
}

/**
 * The caller's access. A token limited to some boards (`allowedBoardIds`) reaches only the
 * spaces linked to one of them.
 */
export function callerAccess(ctx: DomainContext, space: WikiSpaceItem, board: BoardItem | undefined): WikiAccess {
  const allowed = ctx.actor.credential.allowedBoardIds;
  if (allowed.length > 0 && !(space.boardId && allowed.includes(space.boardId))) return NONE;
  return wikiAccess(ctx.actor, space, board);
}
