import { AppError, conflict } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { AnonymousContext } from '../db/context.js';
import { config } from '../core/config.js';
import { guarded, transact } from '../db/transact.js';
import { hashPassword } from '../core/passwords.js';
import { issueSession } from './session-issuer.js';
import { presentUser } from '../users/index.js';
import { SYSTEM_GROUPS, directoryEntryOf, DEFAULT_STATUSES, DEFAULT_TICKET_TYPE, claimName } from '../organizations/index.js';
import type { OrganizationItem, UserItem } from '../db/entities/index.js';
import { DEFAULT_MAX_CONCURRENT_CLAIMS } from '../db/entities/index.js';

export interface SignupInput {
  organizationName: string;
  slug: string;
  name: string;
  email: string;
  password: string;
}

/** Slugs that would collide with the service's own host names. */
const RESERVED_SLUGS = new Set(['www', 'api', 'app', 'admin', 'auth', 'mcp', 'status', 'docs', 'platform', 'mail']);

/**
 * Creates an organization on the FREE plan with its defaults (statuses, ticket type, the
 * system permission groups) and the caller as its administrator, in one transaction,
 * and signs the caller in.
 */
export async function signup(ctx: AnonymousContext, input: SignupInput, options: { byPlatformOperator?: boolean } = {}) {
  // With sign-up off, the platform operator still creates organizations (the first one among them).
  if (!config().signupEnabled && !options.byPlatformOperator) throw new AppError('FORBIDDEN', 'Sign-up is disabled on this installation; the platform operator creates organizations');
  if (RESERVED_SLUGS.has(input.slug)) throw conflict('This slug is reserved', { field: 'slug' });
  const now = ctx.clock.now();
  const at = now.toISOString();
  const orgId = newId('org');
  const userId = newId('usr');
  const email = input.email.toLowerCase();

  const groups = SYSTEM_GROUPS.map((group) => ({
    orgId,
    groupId: newId('grp'),
    name: group.name,
    color: group.color,
    type: group.type,
    permissions: [...group.permissions],
    isSystem: true,
    systemKey: group.systemKey,
    createdAt: at,
    updatedAt: at,
  }));
  const adminGroup = groups.find((group) => group.systemKey === 'ADMINISTRATORS')!;
  const organization: OrganizationItem = {
    orgId,
    slug: input.slug,
    name: input.organizationName,
    plan: 'FREE',
    timeTrackingEnabled: true,
    defaultTimeFactor: 1,
    defaultMaxConcurrentClaims: DEFAULT_MAX_CONCURRENT_CLAIMS,
    liveAgentCount: 0,
    webhookEndpointCount: 0,
    groupDirectory: Object.fromEntries(groups.map((group) => [group.groupId, directoryEntryOf(group)])),
    createdAt: at,
    updatedAt: at,
  };
  const user: UserItem = {
    orgId,
    userId,
    name: input.name,
    email,
    role: 'ADMIN',
    isActive: true,
    isAgent: false,
    passwordHash: await hashPassword(input.password),
    permissionGroupIds: [adminGroup.groupId],
    createdAt: at,
    updatedAt: at,
  };
  const session = await issueSession(orgId, userId, now);
  const statuses = DEFAULT_STATUSES.map((status) => ({ ...status, statusId: newId('sts') }));
  const typeId = newId('typ');

  // Every item is new (fresh ids); only the slug can be taken. Anything else failing is a freak collision.
  const signupConflicted = () => conflict('Sign-up conflicted; retry');
  await transact(
    (entities) => [
      guarded(entities.organizationSlug.create({ slug: input.slug, orgId }).commit(), () => conflict('This slug is already taken', { field: 'slug' })),
      entities.organization.create(organization).commit(),
      entities.user.create(user).commit(),
      entities.userEmail.create({ orgId, email, userId }).commit(),
      entities.credential.create(session.record).commit(),
      ...groups.map((group) => entities.permissionGroup.create(group).commit()),
      ...statuses.map((status, order) =>
        entities.status
          .create({
            orgId,
            statusId: status.statusId,
            key: status.key,
            name: status.name,
            color: status.color,
            category: status.category,
            order,
            isDefault: status.isDefault ?? false,
            isFinal: status.isFinal ?? false,
            isMandatory: status.isMandatory ?? false,
            enabledByDefault: true,
            createdAt: at,
            updatedAt: at,
          })
          .commit(),
      ),
      entities.ticketType
        .create({ orgId, typeId, ...DEFAULT_TICKET_TYPE, order: 0, isOrgDefault: true, enabledByDefault: true, createdAt: at, updatedAt: at })
        .commit(),
      // Name guards (lib/organizations/unique-names.ts), so the defaults are guarded like later items.
      ...statuses.flatMap((status) => [
        claimName(entities, orgId, 'status', status.name, status.statusId, signupConflicted),
        claimName(entities, orgId, 'statusKey', status.key, status.statusId, signupConflicted),
      ]),
      claimName(entities, orgId, 'ticketType', DEFAULT_TICKET_TYPE.name, typeId, signupConflicted),
    ],
  );

  return {
    organization: { id: orgId, slug: organization.slug, name: organization.name, plan: organization.plan },
    user: presentUser(user),
    token: session.token,
    expiresIn: session.expiresIn,
  };
}
