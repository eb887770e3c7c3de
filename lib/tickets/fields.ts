import type { TicketItem } from '../db/entities/index.js';

/**
 * The settable fields of a ticket (the API reference). `null` clears a field that may be
 * empty; `undefined` leaves it as it is.
 */
export interface TicketFieldChanges {
  title?: string;
  description?: string;
  statusId?: string;
  priority?: TicketItem['priority'];
  assigneeId?: string | null;
  typeId?: string;
  labelIds?: string[];
  customerId?: string | null;
  dueDate?: string | null;
  startDate?: string | null;
  estimatedHours?: number | null;
  timeSpent?: number | null;
  storyPoints?: number | null;
  externalReference?: string | null;
  impactLevel?: NonNullable<TicketItem['impactLevel']> | null;
  milestoneId?: string | null;
  resolution?: string | null;
  resolutionType?: NonNullable<TicketItem['resolutionType']> | null;
  isArchived?: boolean;
}

const CLEARABLE = [
  'assigneeId', 'customerId', 'dueDate', 'startDate', 'estimatedHours', 'timeSpent', 'storyPoints',
  'externalReference', 'impactLevel', 'milestoneId', 'resolution', 'resolutionType',
] as const;

/** The ticket with the changes applied (a new object; `null` removes the attribute). */
export function applyFieldChanges(ticket: TicketItem, changes: TicketFieldChanges): TicketItem {
  const next: Record<string, unknown> = { ...ticket };
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null && (CLEARABLE as readonly string[]).includes(field)) delete next[field];
    else next[field] = value;
  }
  if (changes.assigneeId === null) delete next.assigneeName;
  if (changes.labelIds) next.labelIds = [...new Set(changes.labelIds)];
  return next as TicketItem;
}
