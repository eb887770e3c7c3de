import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypes } from '../../web/api-types.js';

it('refuses a stale console client: its API types are those of the current OpenAPI document (npx tsx web/api-types.ts)', async () => {
  expect(readFileSync(API_TYPES_FILE, 'utf8') === (await apiTypes())).toBe(true);
}, 60_000);
