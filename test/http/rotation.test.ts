import { afterEach, describe, expect, inject, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { api, useInProcess } from '../support/api.js';
import { ensureTable } from '../../infra/local/dynamodb.js';
import { resealSecrets } from '../../infra/ops/reseal-secrets.js';
import { sealingKeyOf, webhookSecretKeys } from '../../lib/core/config.js';
import { seal, unseal, unsealWithAny } from '../../lib/core/sealed.js';

/**
 * Rotating the webhook secret key and the OAuth key seed (docs/operations.md): while a rotation
 * is under way the previous key still opens secrets and still verifies tokens; the reseal job
 * moves every stored secret to the new key.
 */
useInProcess();
const keyOf = sealingKeyOf;
const saved = { ...process.env };
afterEach(() => {
  for (const name of ['WEBHOOK_SECRET_KEY', 'WEBHOOK_SECRET_KEY_PREVIOUS', 'OAUTH_SIGNING_KEY_SEED_PREVIOUS']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('rotating the webhook secret key', () => {
  it('opens a secret sealed under the previous key while WEBHOOK_SECRET_KEY_PREVIOUS is set, and only then', () => {
    const [oldKey, newKey] = ['o'.repeat(40), 'n'.repeat(40)];
    const sealed = seal('whsec_signing', keyOf(oldKey));
    process.env.WEBHOOK_SECRET_KEY = newKey;
    delete process.env.WEBHOOK_SECRET_KEY_PREVIOUS;
    expect(() => unsealWithAny(sealed, webhookSecretKeys())).toThrow();
    process.env.WEBHOOK_SECRET_KEY_PREVIOUS = oldKey;
    expect(unsealWithAny(sealed, webhookSecretKeys())).toBe('whsec_signing');
    expect(unsealWithAny(seal('under the new key', keyOf(newKey)), webhookSecretKeys())).toBe('under the new key');
  });

  it('reseals every stored secret under the new key, leaves the current ones, reports the unreadable, and can run again', async () => {
    const tableName = `reseal-${randomBytes(4).toString('hex')}`;
    await ensureTable(inject('dynamoEndpoint'), tableName);
    const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamoEndpoint'), region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
    const [oldKey, newKey] = [randomBytes(24).toString('hex'), randomBytes(24).toString('hex')];
    const items = [
      { pk: 'endpoint', sk: 'a', sealedSecret: seal('whsec_a', keyOf(oldKey)) },
      { pk: 'integration', sk: 'b', sealedSecret: seal('hook_b', keyOf(oldKey)) },
      { pk: 'endpoint', sk: 'c', sealedSecret: seal('whsec_c', keyOf(newKey)) },
      { pk: 'endpoint', sk: 'd', sealedSecret: seal('whsec_d', keyOf('some other key entirely')) },
      { pk: 'ticket', sk: 'e', title: 'no secret here' },
    ];
    for (const item of items) await documents.send(new PutCommand({ TableName: tableName, Item: item }));

    const first = await resealSecrets({ documents, tableName, currentKey: newKey, previousKey: oldKey });
    expect(first).toEqual({ found: 4, resealed: 2, current: 1, unreadable: 1 });
    for (const [sk, plain] of [['a', 'whsec_a'], ['b', 'hook_b'], ['c', 'whsec_c']] as const) {
      const pk = sk === 'b' ? 'integration' : 'endpoint';
      const { Item } = await documents.send(new GetCommand({ TableName: tableName, Key: { pk, sk } }));
      expect(unseal(Item!.sealedSecret as string, keyOf(newKey))).toBe(plain);
    }
    expect(await resealSecrets({ documents, tableName, currentKey: newKey, previousKey: oldKey })).toEqual({ found: 4, resealed: 0, current: 3, unreadable: 1 });
  });
});

describe('rotating the OAuth key seed', () => {
  it('publishes the previous public key beside the new one while OAUTH_SIGNING_KEY_SEED_PREVIOUS is set', async () => {
    const before = (await api('GET', '/.well-known/jwks.json')).body.keys as { kid: string }[];
    expect(before).toHaveLength(1);
    process.env.OAUTH_SIGNING_KEY_SEED_PREVIOUS = 'p'.repeat(48);
    const during = (await api('GET', '/.well-known/jwks.json')).body.keys as { kid: string }[];
    expect(during).toHaveLength(2);
    expect(during[0]!.kid).toBe(before[0]!.kid);
    expect(during[1]!.kid).not.toBe(before[0]!.kid);
  });
});
