import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';
import { ROLES } from './user.js';

/**
 * An invitation to join the organization, sent by e-mail (docs/console.md, "People join and
 * recover"). The link carries `<invitationId>.<secret>`; only the secret's SHA-256 is kept. The
 * organization's invitations share its partition, newest last; accepting one sets `acceptedAt`
 * under a condition, so a link works once. TTL removes it a week after it expires.
 */
export const Invitation = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'invitation', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      invitationId: { type: 'string', required: true },
      email: { type: 'string', required: true },
      role: { type: ROLES, required: true },
      permissionGroupIds: { type: 'list', items: { type: 'string' }, required: true },
      invitedById: { type: 'string', required: true },
      invitedByName: { type: 'string', required: true },
      secretHash: { type: 'string', required: true },
      expiresAt: { type: 'string', required: true },
      acceptedAt: { type: 'string' },
      acceptedUserId: { type: 'string' },
      ttl: { type: 'number' },
      createdAt: { type: 'string', required: true, readOnly: true },
    },
    indexes: {
      byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['invitationId'] } },
    },
  }, config);
export type InvitationItem = EntityItem<ReturnType<typeof Invitation>>;

/**
 * A password reset a person asked for by e-mail: single use (`usedAt`, set under a condition),
 * expiring (`expiresAt`), void once the password changed after it was made. Keyed like an
 * invitation: the link carries `<resetId>.<secret>`, the item only the secret's SHA-256.
 */
export const PasswordReset = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'passwordReset', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      resetId: { type: 'string', required: true },
      userId: { type: 'string', required: true },
      secretHash: { type: 'string', required: true },
      expiresAt: { type: 'string', required: true },
      usedAt: { type: 'string' },
      ttl: { type: 'number' },
      createdAt: { type: 'string', required: true, readOnly: true },
    },
    indexes: {
      byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['resetId'] } },
    },
  }, config);
export type PasswordResetItem = EntityItem<ReturnType<typeof PasswordReset>>;

/**
 * A message the service sent while no mail service is configured (lib/mail): the outbox the
 * platform operator reads, per organization, newest last; TTL removes it after 7 days.
 */
export const OutboxMail = (config?: EntityConfiguration) =>
  new Entity({
    model: { entity: 'outboxMail', version: '1', service: 'wm' },
    attributes: {
      orgId: { type: 'string', required: true },
      mailId: { type: 'string', required: true },
      to: { type: 'string', required: true },
      subject: { type: 'string', required: true },
      text: { type: 'string', required: true },
      link: { type: 'string', required: true },
      ttl: { type: 'number' },
      createdAt: { type: 'string', required: true, readOnly: true },
    },
    indexes: {
      byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['mailId'] } },
    },
  }, config);
export type OutboxMailItem = EntityItem<ReturnType<typeof OutboxMail>>;
