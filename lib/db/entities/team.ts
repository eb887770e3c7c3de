import { Entity, type EntityItem } from 'electrodb';

export const Team = new Entity({
  model: { entity: 'team', version: '1', service: 'wm' },
  attributes: {
    orgId: { type: 'string', required: true },
    teamId: { type: 'string', required: true },
    name: { type: 'string', required: true },
    searchName: { type: 'string', required: true },
    color: { type: 'string', required: true },
    memberCount: { type: 'number', required: true, default: 0 },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byOrg: { pk: { field: 'pk', composite: ['orgId'] }, sk: { field: 'sk', composite: ['teamId'] } },
  },
});
export type TeamItem = EntityItem<typeof Team>;

/** Membership of a user in a team. The user's `teamIds` set is updated in the same transaction. */
export const TeamMember = new Entity({
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
});
export type TeamMemberItem = EntityItem<typeof TeamMember>;
