import * as z from 'zod';
import { isCalendarDay } from './clock.js';
import { groupDigits, hasControlCharacters } from './text.js';

/*
 * Input fields every edge reads alike: the REST routes (lib/http/validation.ts re-exports these)
 * and the MCP tools (lib/mcp/tools.ts) build their schemas from the same definitions, so a limit
 * is one number in one place.
 */

export const idParam = z.string().min(1).max(64);

/** Trimmed, non-empty string of at most `max` characters. */
export const requiredText = (max: number) => z.string().trim().min(1, 'Must not be empty').max(max, `At most ${max} characters`);

export const optionalText = (max: number) => z.string().max(max, `At most ${max} characters`);

/** A date (YYYY-MM-DD), or an ISO 8601 date-time, which counts as its UTC day. */
export const calendarDate = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    if (isCalendarDay(value)) return value;
    if (/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value).toISOString().slice(0, 10);
    ctx.addIssue({ code: 'custom', message: 'Must be an ISO 8601 date (YYYY-MM-DD)' });
    return z.NEVER;
  })
  .meta({ override: { type: 'string', format: 'date', description: 'ISO 8601 date (YYYY-MM-DD); a date-time counts as its UTC day' } });

/**
 * A URL the API stores and shows again (a handoff's links, a webhook or sync endpoint, an OAuth
 * redirect): at most `max` characters and no control characters (C0, DEL, C1), which URL parsers
 * drop or keep in ways a reader of the stored text does not see.
 */
export const storedUrl = (max: number) =>
  z.string().max(max, `At most ${groupDigits(max)} characters`).refine((value) => !hasControlCharacters(value), 'Must not contain control characters');

/** An http(s) URL with a host, stored as sent (a link a person or an agent follows). */
export const webLink = (max: number) =>
  storedUrl(max).refine((value) => {
    if (!/^https?:\/\/[^/\\?#]/i.test(value)) return false;
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'An http or https URL');
