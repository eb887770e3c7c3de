import { invalidField } from '../../core/errors.js';
import { LostRace, retryLostRaces } from '../../db/races.js';
import { guarded } from '../../db/transact.js';
import type { DomainContext } from '../../db/context.js';
import type { CustomFieldItem } from '../../db/entities/index.js';
import { requirePermission } from '../../organizations/index.js';
import { loadTicketWithConfig } from '../access.js';
import { presentFullTicket } from '../present.js';
import { updateTicket } from '../update.js';

export const MAX_TEXT_VALUE_LENGTH = 10_000;
export const MAX_VALUES_PER_REQUEST = 100;

export interface CustomFieldValueInput {
  customFieldId: string;
  /** null clears the ticket's value. */
  value: string | null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The value as stored for the field's type, or an error message. Values are strings on the
 * wire and in storage (the API reference); NUMBER is stored in its canonical decimal form.
 */
export function normalizeCustomFieldValue(field: CustomFieldItem, value: string): { value: string } | { error: string } {
  switch (field.fieldType) {
    case 'TEXT':
      return value.length <= MAX_TEXT_VALUE_LENGTH ? { value } : { error: `At most ${MAX_TEXT_VALUE_LENGTH} characters` };
    case 'NUMBER': {
      const number = value.trim() === '' ? Number.NaN : Number(value);
      return Number.isFinite(number) ? { value: String(number) } : { error: 'Must be a number' };
    }
    case 'DATE':
      return isCalendarDate(value) ? { value } : { error: 'Must be a date (YYYY-MM-DD)' };
    case 'URL':
      return value.length <= 2000 && isHttpUrl(value) ? { value } : { error: 'Must be an http(s) URL of at most 2,000 characters' };
    case 'SELECT':
      return (field.options ?? []).includes(value) ? { value } : { error: `Must be one of: ${(field.options ?? []).join(', ')}` };
    case 'CHECKBOX':
      return value === 'true' || value === 'false' ? { value } : { error: "Must be 'true' or 'false'" };
  }
}

/**
 * PUT /boards/{boardId}/tickets/{ticketId}/custom-fields: sets or clears the listed values
 * (others stay). Each value is checked against its definition; the write re-checks every
 * definition it relies on (unchanged `updatedAt`), so a field deleted or re-optioned in the
 * meantime cannot slip a stale value in. Values of definitions deleted since are dropped here.
 */
export async function setCustomFieldValues(ctx: DomainContext, boardId: string, ticketId: string, values: CustomFieldValueInput[]) {
  requirePermission(ctx, 'custom-fields:manage');
  return retryLostRaces(async () => {
    const loaded = await loadTicketWithConfig(ctx, boardId, ticketId);
    const { config, ticket } = loaded;

    const stored = (ticket.customFieldValues ?? {}) as Record<string, string>;
    const next: Record<string, string> = Object.fromEntries(Object.entries(stored).filter(([fieldId]) => config.customField(fieldId)));
    const relied: CustomFieldItem[] = [];
    const seen = new Set<string>();
    values.forEach((entry, index) => {
      const field = config.customField(entry.customFieldId);
      if (!field) throw invalidField(`values.${index}.customFieldId`, 'Unknown custom field');
      if (seen.has(field.fieldId)) throw invalidField(`values.${index}.customFieldId`, 'Listed twice');
      seen.add(field.fieldId);
      if (entry.value === null) {
        if (field.isRequired) throw invalidField(`values.${index}.value`, 'This field is required and cannot be cleared');
        delete next[field.fieldId];
        return;
      }
      const normalized = normalizeCustomFieldValue(field, entry.value);
      if ('error' in normalized) throw invalidField(`values.${index}.value`, normalized.error);
      next[field.fieldId] = normalized.value;
      relied.push(field);
    });

    const empty = Object.keys(next).length === 0;
    const saved = await updateTicket(ctx, loaded, {}, {
      ...(empty ? { remove: ['customFieldValues'] } : { extra: { customFieldValues: next } }),
      related: (e) =>
        relied.map((field) =>
          guarded(
            e.customField
              .check({ orgId: field.orgId, fieldId: field.fieldId })
              .where((attr, op) => op.eq(attr.updatedAt, field.updatedAt))
              .commit(),
            () => new LostRace(`The custom field "${field.name}" changed concurrently; retry`),
          ),
        ),
    });
    return presentFullTicket(saved, config, ctx);
  });
}
