import { Entity, type EntityConfiguration, type EntityItem } from 'electrodb';

/** Comments of a ticket, oldest first (ULID sort keys); `parentId` threads replies. */
export const Comment = (config?: EntityConfiguration) =>
  new Entity({
  model: { entity: 'comment', version: '1', service: 'wm' },
  attributes: {
    ticketId: { type: 'string', required: true },
    commentId: { type: 'string', required: true },
    orgId: { type: 'string', required: true },
    boardId: { type: 'string', required: true },
    parentId: { type: 'string' },
    content: { type: 'string', required: true },
    isSecret: { type: 'boolean', required: true, default: false },
    authorId: { type: 'string', required: true },
    authorName: { type: 'string', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    updatedAt: { type: 'string', required: true },
  },
  indexes: {
    byTicket: { pk: { field: 'pk', composite: ['ticketId'] }, sk: { field: 'sk', composite: ['commentId'] } },
  },
}, config);
export type CommentItem = EntityItem<ReturnType<typeof Comment>>;
