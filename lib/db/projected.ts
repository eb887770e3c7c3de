import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentDb } from './client.js';

/** A Query as ElectroDB builds it (`….params()`): key condition, its own filter, names and values. */
export interface QueryParams {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression: string;
  FilterExpression?: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

/** Where a Query stopped (DynamoDB's LastEvaluatedKey), or undefined at its end. */
export type QueryCursor = Record<string, unknown> | undefined;

/**
 * A `begins_with` key condition (as ElectroDB writes one) as the same key range: BETWEEN the
 * prefix and the prefix followed by the highest code point. The same items; DynamoDB seeks
 * either, but DynamoDB Local (the local runtime) reads the whole partition for `begins_with`.
 */
export function asKeyRange(params: QueryParams): QueryParams {
  const match = /^(#pk = :pk) and begins_with\((#sk\d*), (:sk\d*)\)$/.exec(params.KeyConditionExpression);
  if (!match) return params;
  const [, partition, name, value] = match as unknown as [string, string, string, string];
  return {
    ...params,
    KeyConditionExpression: `${partition} and ${name} BETWEEN ${value} AND :prefixEnd`,
    ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ':prefixEnd': `${params.ExpressionAttributeValues[value]}\u{10FFFF}` },
  };
}

/**
 * Runs an ElectroDB-built Query (consistent) returning only `fields` (every attribute when none), as stored: for index
 * entries read by the thousand, where ElectroDB's formatting of each item costs more than the
 * read itself. From `start`, up to `limit` items when given; answers the items and where it
 * stopped.
 */
export async function queryProjected<T>(params: QueryParams, fields: readonly string[], limit?: number, start?: QueryCursor): Promise<{ items: T[]; next: QueryCursor }> {
  const names = Object.fromEntries(fields.map((field, index) => [`#p${index}`, field]));
  const items: T[] = [];
  let next = start;
  do {
    const page = await documentDb().send(
      new QueryCommand({
        ...asKeyRange(params),
        ExpressionAttributeNames: { ...params.ExpressionAttributeNames, ...names },
        ...(fields.length > 0 ? { ProjectionExpression: Object.keys(names).join(', ') } : {}),
        ConsistentRead: true,
        ExclusiveStartKey: next,
        ...(limit !== undefined ? { Limit: limit - items.length } : {}),
      }),
    );
    items.push(...((page.Items ?? []) as T[]));
    next = page.LastEvaluatedKey;
  } while (next && (limit === undefined || items.length < limit));
  return { items, next };
}

/**
 * The number of items a Query selects from `start` with `filter` ANDed to its own (Select
 * COUNT): consistent on the table, eventually consistent on a global secondary index (the
 * only read it allows).
 */
export async function queryCount(params: QueryParams, filter: { expression: string; names: Record<string, string>; values: Record<string, unknown> }, start?: QueryCursor): Promise<number> {
  const expression = [params.FilterExpression, filter.expression].filter(Boolean).map((part) => `(${part})`).join(' AND ');
  const range = asKeyRange(params);
  let total = 0;
  let next = start;
  do {
    const page = await documentDb().send(
      new QueryCommand({
        TableName: params.TableName,
        ...(params.IndexName ? { IndexName: params.IndexName } : {}),
        KeyConditionExpression: range.KeyConditionExpression,
        ...(expression ? { FilterExpression: expression } : {}),
        ExpressionAttributeNames: { ...params.ExpressionAttributeNames, ...filter.names },
        ExpressionAttributeValues: { ...range.ExpressionAttributeValues, ...filter.values },
        Select: 'COUNT',
        ConsistentRead: !params.IndexName,
        ExclusiveStartKey: next,
      }),
    );
    total += page.Count ?? 0;
    next = page.LastEvaluatedKey;
  } while (next);
  return total;
}
