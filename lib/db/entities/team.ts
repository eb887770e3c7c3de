import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

export const Team = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'team', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    teamId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    // Derived by the entity from \`name\` in the same write (watch): domain code never sets it.
    searchName: { type: 'string', required: true, default: '', watch: ['name'], set: (_: unknown, item: { name?: string }) => (item.name ?? '').toLowerCase() },
    color: { type: 'string', required: true },
    memberCount: { type: 'number', required: true, default: 0 },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['teamId'] } },
  },
}, config);
export type TeamItem = EntityItem<ReturnType<typeof Team>>;

/** Membership of a user in a team. The user's `teamIds` set is updated in the same transaction. */
export const TeamMember = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'teamMember', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    teamId: { type: 'string', required: true },
    userId: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: {
    byTeam: { pk: { field: 'pk', composite: ['orgId', 'teamId'] }, sk: { field: 'sk', composite: ['userId'] } },
  },
}, config);
export type TeamMemberItem = EntityItem<ReturnType<typeof TeamMember>>;
