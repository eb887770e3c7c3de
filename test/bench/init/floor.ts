/**
 * The floor of `npm run bench:init`: a Lambda bundle holding only what every function of the
 * service must load (ElectroDB and the DynamoDB DocumentClient), importing them and nothing else.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Entity, Service } from 'electrodb';

const loaded = [DynamoDBClient, DynamoDBDocumentClient, Entity, Service];

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({ statusCode: 200, body: String(loaded.length) });
