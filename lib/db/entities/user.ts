import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const ROLES = ['ADMIN', 'TEAM_MEMBER', 'CUSTOMER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * People and agents of an organization. `teamIds` is denormalized from TeamMember (written
 * in the same transaction) so board access is decided from the user item alone.
 */
export const User = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'user', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    email: { type: 'string', required: true },
    role: { type: ROLES, required: true },
    isActive: { type: 'boolean', required: true, default: true },
    isAgent: { type: 'boolean', required: true, default: false },
    customerId: { type: 'string' },
    passwordHash: { type: 'string' },
    permissionGroupIds: { type: 'set', items: 'string' },
    teamIds: { type: 'set', items: 'string' },
    /** Sessions issued before this instant are void (set by a password change). */
    sessionsValidAfter: { type: 'string' },
    /** OAuth grants made before this time are revoked (logout, password change; docs/oauth.md). */
    oauthValidAfter: { type: 'string' },
    lastSeenAt: { type: 'string' },
    /** Agents only (docs/agents.md): the human owner and the limits that govern the agent. */
    ownerId: { type: 'string' },
    description: { type: 'string' },
    timeFactor: { type: 'number' },
    weeklyHoursCap: { type: 'number' },
    maxConcurrentClaims: { type: 'number' },
    /** Agents only: claim-next answers 204 and named claims DISPATCH_PAUSED while set (lib/tickets/claims/dispatch.ts). */
    dispatchPaused: { type: 'boolean' },
    /** Agents only: spend allowed per calendar month (US dollars × 10⁶); absent: no budget. */
    monthlyBudgetMicros: { type: 'number' },
    gitIdentity: { type: 'string' },
    /** Agents only: pull requests recognised as theirs, and how many of those were flagged for human review (agents overview). */
    pullRequestCount: { type: 'number' },
    humanReviewPullRequestCount: { type: 'number' },
    /** Agents only: their PENDING time entries and the minutes those book (agents overview), kept by the entry transactions. */
    pendingTimeCount: { type: 'number' },
    pendingTimeMinutes: { type: 'number' },
    /** Soft-deleted agents keep their record (history) but can never authenticate again. */
    isDeleted: { type: 'boolean' },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: {
      pk: { field: 'pk', composite: ['orgId'] },
      sk: { field: 'sk', composite: ['userId'] },
    },
  },
}, config);
export type UserItem = EntityItem<ReturnType<typeof User>>;

/** Uniqueness of an e-mail within an organization, and e-mail → user lookup for login. */
export const UserEmail = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'userEmail', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    email: { type: 'string', required: true },
    userId: { type: 'string', required: true },
  },
  indexes: {
    byEmail: { pk: { field: 'pk', composite: ['orgId', 'email'] }, sk: { field: 'sk', composite: [] } },
  },
}, config);
