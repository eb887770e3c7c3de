/**
 * The maintenance jobs' one way to read every item of an entity: a Scan of the table, page by
 * page. Only jobs run by an operator use it; the functions are never granted Scan.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/core/config.js';
import { documentDb } from '../../lib/db/client.js';
import { db } from '../../lib/db/service.js';

/** Every item of one entity (of one organization when given), by Scan, `fields` only. */
export async function* scanEntity(entity: string, fields: string, orgId?: string): AsyncGenerator<Record<string, unknown>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentDb().send(
      new ScanCommand({
        TableName: config().tableName,
        FilterExpression: orgId ? '#entity = :entity AND orgId = :orgId' : '#entity = :entity',
        ProjectionExpression: fields,
        ExpressionAttributeNames: { '#entity': '__edb_e__' },
        ExpressionAttributeValues: { ':entity': entity, ...(orgId ? { ':orgId': orgId } : {}) },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) yield item;
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Every ticket of the table (Scan), or one organization's, board by board (Query). */
export async function* ticketsOf(orgId: string | undefined): AsyncGenerator<{ ticketId: string; orgId: string }> {
  if (orgId === undefined) {
    for await (const item of scanEntity('ticket', 'ticketId, orgId')) yield { ticketId: String(item.ticketId), orgId: String(item.orgId) };
    return;
  }
  const boards = await db().entities.board.query.byOrg({ orgId }).go({ pages: 'all', attributes: ['boardId'] });
  for (const { boardId } of boards.data) {
    const tickets = await db().entities.ticket.query.byBoard({ orgId, boardId }).go({ pages: 'all', attributes: ['ticketId'] });
    for (const { ticketId } of tickets.data) yield { ticketId, orgId };
  }
}

