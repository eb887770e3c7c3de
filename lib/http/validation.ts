import * as z from 'zod';
import { validationError, type ValidationIssue } from '../core/errors.js';
import { refuseMalformedText } from '../core/text.js';
import { requiredText, idParam } from '../core/fields.js';

export { calendarDate, idParam, optionalText, requiredText, storedUrl, webLink } from '../core/fields.js';

/**
 * Parses with zod; failures become 400 VALIDATION_ERROR naming each field. A string with an
 * unpaired UTF-16 surrogate is refused first, wherever it is, like invalid UTF-8.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, root: 'body' | 'query' | 'path'): T {
  refuseMalformedText(value, root);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error.issues.map((issue) => toIssue(issue, root)));
}

function toIssue(issue: z.core.$ZodIssue, root: string): ValidationIssue {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return { path: issue.keys.join(','), message: `Unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}` };
  }
  return { path: path || root, message: issue.message };
}

/** Query-string boolean: only "true" and "false" are accepted. */
export const queryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** page ≥ 1 (default 1); limit clamped to [1, max] (default `defaultLimit`), as the API reference states for every list. */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return {
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce
      .number()
      .int()
      .default(defaultLimit)
      .transform((limit) => Math.min(Math.max(limit, 1), maxLimit)),
  };
}

export const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color like #RRGGBB');

/** An e-mail address, trimmed and lower-cased, at most 254 characters. */
export const emailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('Must be an e-mail address'))
  .pipe(z.string().max(254))
  .meta({ override: { type: 'string', format: 'email', maxLength: 254 } });

/** A query parameter holding a comma-separated list (`a,b,c`), read as its non-empty items. */
export const commaSeparated = z
  .string()
  .max(4000)
  .meta({ description: 'Comma-separated list' })
  .transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean));

/** Restriction fields shared by personal and agent tokens (docs/agents.md). */
export const tokenRestrictionsBody = z.strictObject({
  name: requiredText(200),
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional(),
  allowedBoardIds: z.array(idParam).max(100, 'At most 100 boards').optional(),
  readOnly: z.boolean().optional(),
  denyDelete: z.boolean().optional(),
  clientLabel: z.string().max(200, 'At most 200 characters').nullable().optional(),
});
