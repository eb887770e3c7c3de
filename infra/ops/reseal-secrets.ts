/**
 * `npm run reseal-secrets`: the second step of rotating the webhook secret key
 * (docs/operations.md). Seals every stored secret (webhook endpoints, GitHub hook secrets, the
 * time-booking sync endpoint) again under the new key. Run it with the table's name, the new
 * key as WEBHOOK_SECRET_KEY, the old one as WEBHOOK_SECRET_KEY_PREVIOUS and AWS credentials
 * (or DYNAMODB_ENDPOINT for DynamoDB Local). Safe to run again: a secret already under the new
 * key is left alone, and each rewrite is conditional on the value it read.
 *
 * A maintenance job, not a request: it Scans the table, page by page, for the items that hold a
 * sealed secret. The functions themselves are never granted Scan.
 */
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sealingKeyOf } from '../../lib/core/config.js';
import { seal, unseal } from '../../lib/core/sealed.js';

export interface ResealResult {
  /** Items holding a sealed secret. */
  found: number;
  resealed: number;
  /** Already sealed under the new key. */
  current: number;
  /** Opened by neither key (left as they are; named by key in the log). */
  unreadable: number;
}

export async function resealSecrets(options: { documents: DynamoDBDocumentClient; tableName: string; currentKey: string; previousKey: string }): Promise<ResealResult> {
  const current = sealingKeyOf(options.currentKey);
  const previous = sealingKeyOf(options.previousKey);
  const result: ResealResult = { found: 0, resealed: 0, current: 0, unreadable: 0 };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await options.documents.send(
      new ScanCommand({
        TableName: options.tableName,
        FilterExpression: 'attribute_exists(sealedSecret)',
        ProjectionExpression: 'pk, sk, sealedSecret',
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      result.found += 1;
      const sealed = item.sealedSecret as string;
      if (opens(sealed, current)) {
        result.current += 1;
        continue;
      }
      if (!opens(sealed, previous)) {
        result.unreadable += 1;
        console.warn(`unreadable sealed secret left as it is: ${item.pk} / ${item.sk}`);
        continue;
      }
      await options.documents.send(
        new UpdateCommand({
          TableName: options.tableName,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET sealedSecret = :resealed',
          ConditionExpression: 'sealedSecret = :read',
          ExpressionAttributeValues: { ':resealed': seal(unseal(sealed, previous), current), ':read': sealed },
        }),
      );
      result.resealed += 1;
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return result;
}

function opens(sealed: string, key: Buffer): boolean {
  try {
    unseal(sealed, key);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { TABLE_NAME: tableName, WEBHOOK_SECRET_KEY: currentKey, WEBHOOK_SECRET_KEY_PREVIOUS: previousKey, DYNAMODB_ENDPOINT: endpoint } = process.env;
  if (!tableName || !currentKey || !previousKey) {
    console.error('Set TABLE_NAME, WEBHOOK_SECRET_KEY (the new key) and WEBHOOK_SECRET_KEY_PREVIOUS (the old one).');
    process.exit(2);
  }
  const client = new DynamoDBClient(endpoint ? { endpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {});
  const result = await resealSecrets({ documents: DynamoDBDocumentClient.from(client), tableName, currentKey, previousKey });
  console.log(JSON.stringify(result));
  process.exit(result.unreadable > 0 ? 1 : 0);
}
