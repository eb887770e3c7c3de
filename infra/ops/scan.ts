/**
 * The maintenance jobs' one way to read every item of an entity: a Scan of the table, page by
 * page. Only jobs run by an operator use it; the functions are never granted Scan.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../lib/core/config.js';
import { documentDb } from '../../lib/db/client.js';

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

