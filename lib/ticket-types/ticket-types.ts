import { conflict, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, transact, type TransactionEntities } from '../db/transact.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import type { TicketTypeItem } from '../db/entities/index.js';
import { requirePermission, assertNameFree as assertFree, claimName, nameChanges, nameTaken, releaseName } from '../organizations/index.js';
import { RETYPE_JOB, type Retyping } from '../tickets/index.js';
import { eventPuts, jobRecord } from '../events/index.js';

/** A ticket type's order is 0-100 (the API reference). */
export const MAX_TYPE_ORDER = 100;

const changedConcurrently = () => new LostRace('The ticket types changed concurrently; retry');

export function presentTicketType(type: TicketTypeItem) {
  return {
    id: type.typeId,
    name: type.name,
    color: type.color,
    description: type.description,
    order: type.order,
    isOrgDefault: type.isOrgDefault,
    enabledByDefault: type.enabledByDefault,
    createdAt: type.createdAt,
    updatedAt: type.updatedAt,
  };
}

const byDisplayOrder = (a: TicketTypeItem, b: TicketTypeItem): number =>
  a.order - b.order || a.name.localeCompare(b.name) || a.typeId.localeCompare(b.typeId);

/** Every ticket type item of the organization, those being deleted too: one consistent Query. */
async function loadTypeItems(orgId: string): Promise<TicketTypeItem[]> {
  return (await db().entities.ticketType.query.byOrg({ orgId }).go({ pages: 'all', consistent: true })).data;
}

/** The organization's ticket types in display order (order, then name); a type being deleted is gone. */
export async function loadOrganizationTicketTypes(orgId: string): Promise<TicketTypeItem[]> {
  return (await loadTypeItems(orgId)).filter((type) => type.replacedBy === undefined).sort(byDisplayOrder);
}

async function loadTicketType(ctx: DomainContext, typeId: string): Promise<TicketTypeItem> {
  const type = (await db().entities.ticketType.get({ orgId: ctx.org.orgId, typeId }).go({ consistent: true })).data;
  if (!type || type.replacedBy !== undefined) throw notFound('Ticket type');
  return type;
}

const findType = (types: TicketTypeItem[], typeId: string): TicketTypeItem => {
  const type = types.find((candidate) => candidate.typeId === typeId);
  if (!type) throw notFound('Ticket type');
  return type;
};

export async function listTicketTypes(ctx: DomainContext) {
  return (await loadOrganizationTicketTypes(ctx.org.orgId)).map(presentTicketType);
}

export const getTicketType = async (ctx: DomainContext, typeId: string) => presentTicketType(await loadTicketType(ctx, typeId));

/** The type used when a ticket is created without one. */
export async function getDefaultTicketType(ctx: DomainContext) {
  const type = (await loadOrganizationTicketTypes(ctx.org.orgId)).find((candidate) => candidate.isOrgDefault);
  if (!type) throw notFound('Default ticket type');
  return presentTicketType(type);
}

/** `ticketCount` is kept by the ticket write path in the same transaction as each ticket change. */
export async function getTicketTypeCount(ctx: DomainContext, typeId: string) {
  return { count: (await loadTicketType(ctx, typeId)).ticketCount };
}

/** Names are unique per organization, case-insensitively (lib/organizations/unique-names.ts). */
const assertNameFree = (types: TicketTypeItem[], name: string, exceptId?: string): void =>
  assertFree(types, name, { idOf: (type) => type.typeId, nameOf: (type) => type.name, exceptId, what: 'ticket type' });

/** Clears the flag on the previous default in the same transaction that sets the new one. */
function clearOrgDefault(e: TransactionEntities, previous: TicketTypeItem, at: string) {
  return guarded(
    e.ticketType
      .patch({ orgId: previous.orgId, typeId: previous.typeId })
      .set({ isOrgDefault: false, updatedAt: at })
      .where((attr, op) => op.eq(attr.isOrgDefault, true))
      .commit(),
    changedConcurrently,
  );
}

export interface CreateTicketTypeInput {
  name: string;
  color: string;
  description: string;
  order?: number;
  isOrgDefault: boolean;
  enabledByDefault: boolean;
}

/**
 * One consistent Query of the organization's types answers name uniqueness, the default
 * order and the current default; one transaction writes the type with its name guard and,
 * when it becomes the default, clears the previous one.
 */
export async function createTicketType(ctx: DomainContext, input: CreateTicketTypeInput) {
  requirePermission(ctx, 'settings:manage-ticket-types');
  return retryLostRaces(async () => {
    const types = await loadOrganizationTicketTypes(ctx.org.orgId);
    assertNameFree(types, input.name);
    const at = ctx.clock.now().toISOString();
    const type: TicketTypeItem = {
      orgId: ctx.org.orgId,
      typeId: newId('typ'),
      name: input.name,
      color: input.color,
      description: input.description,
      order: input.order ?? Math.min(MAX_TYPE_ORDER, Math.max(-1, ...types.map((existing) => existing.order)) + 1),
      isOrgDefault: input.isOrgDefault,
      enabledByDefault: input.enabledByDefault,
      ticketCount: 0,
      createdAt: at,
      updatedAt: at,
    };
    const previousDefault = input.isOrgDefault ? types.find((existing) => existing.isOrgDefault) : undefined;
    await transact((e) => [
      guarded(e.ticketType.create(type).commit(), changedConcurrently),
      claimName(e, type.orgId, 'ticketType', type.name, type.typeId, () => nameTaken('ticket type', type.name)),
      ...(previousDefault ? [clearOrgDefault(e, previousDefault, at)] : []),
    ]);
    return presentTicketType(type);
  });
}

export interface UpdateTicketTypeInput {
  name?: string;
  color?: string;
  description?: string;
  order?: number;
  isOrgDefault?: boolean;
}

/** The write is guarded by the read `updatedAt` (optimistic locking); a rename moves the name guard in it. */
export async function updateTicketType(ctx: DomainContext, typeId: string, input: UpdateTicketTypeInput) {
  requirePermission(ctx, 'settings:manage-ticket-types');
  return retryLostRaces(async () => {
    const types = await loadOrganizationTicketTypes(ctx.org.orgId);
    const type = findType(types, typeId);
    if (input.name !== undefined) assertNameFree(types, input.name, typeId);
    if (type.isOrgDefault && input.isOrgDefault === false) {
      throw invalidField('isOrgDefault', 'There is always one default ticket type; make another type the default instead');
    }
    const at = ctx.clock.now().toISOString();
    const changes = {
      name: input.name ?? type.name,
      color: input.color ?? type.color,
      description: input.description ?? type.description,
      order: input.order ?? type.order,
      isOrgDefault: input.isOrgDefault ?? type.isOrgDefault,
      updatedAt: at,
    };
    const previousDefault = changes.isOrgDefault && !type.isOrgDefault ? types.find((existing) => existing.isOrgDefault) : undefined;
    const renamed = nameChanges(type.name, input.name);
    await transact((e) => [
      guarded(
        e.ticketType
          .patch({ orgId: ctx.org.orgId, typeId })
          .set(changes)
          .where((attr, op) => op.eq(attr.updatedAt, type.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      ...(renamed
        ? [releaseName(e, ctx.org.orgId, 'ticketType', type.name), claimName(e, ctx.org.orgId, 'ticketType', changes.name, typeId, () => nameTaken('ticket type', changes.name))]
        : []),
      ...(previousDefault ? [clearOrgDefault(e, previousDefault, at)] : []),
    ]);
    return presentTicketType({ ...type, ...changes });
  });
}

/**
 * The replacement named by DELETE ?replacementTypeId, which must be another type of the
 * organization; needed when the type has tickets, or receives those of a type being deleted.
 */
function resolveReplacement(types: TicketTypeItem[], type: TicketTypeItem, replacementTypeId: string | undefined, receiving: boolean): TicketTypeItem | undefined {
  if (replacementTypeId === undefined) {
    if (type.ticketCount > 0) {
      throw invalidField('replacementTypeId', `${type.ticketCount} tickets have this type; name the type they move to`);
    }
    if (receiving) throw invalidField('replacementTypeId', 'The tickets of a deleted type are moving to this type; name the type they move to');
    return undefined;
  }
  if (replacementTypeId === type.typeId) throw invalidField('replacementTypeId', 'Must differ from the deleted type');
  const replacement = types.find((candidate) => candidate.typeId === replacementTypeId);
  if (!replacement) throw invalidField('replacementTypeId', 'Unknown ticket type');
  return replacement;
}

/**
 * DELETE /ticket-types/{id}. A type with tickets (or receiving those of a type being deleted)
 * is marked replaced by `replacementTypeId`, its name freed and the moving job recorded, in one
 * transaction: from then on it is gone from every read (its tickets show the replacement), no
 * ticket can take it, and the request answers at once, whatever the type holds. The job
 * (`retypeStep`, lib/tickets/lists/retype.ts) moves the tickets and then deletes the item. A
 * type without tickets is deleted at once, on condition it still has none (a ticket created in
 * the meantime keeps its type and the delete is retried), its name freed in the same
 * transaction.
 */
export async function deleteTicketType(ctx: DomainContext, typeId: string, replacementTypeId?: string): Promise<void> {
  requirePermission(ctx, 'settings:manage-ticket-types');
  await retryLostRaces(async () => {
    const items = await loadTypeItems(ctx.org.orgId);
    const types = items.filter((candidate) => candidate.replacedBy === undefined);
    const type = findType(types, typeId);
    if (type.isOrgDefault) {
      throw conflict(`"${type.name}" is the default ticket type; make another type the default before deleting it`, { reason: 'DEFAULT_TICKET_TYPE' });
    }
    const receiving = items.some((candidate) => candidate.replacedBy === typeId);
    const replacement = resolveReplacement(types, type, replacementTypeId, receiving);
    if (replacement && (type.ticketCount > 0 || receiving)) {
      const at = ctx.clock.now().toISOString();
      const retyping: Retyping = { fromTypeId: typeId };
      await transact((e) => [
        guarded(
          e.ticketType
            .patch({ orgId: ctx.org.orgId, typeId })
            .set({ replacedBy: replacement.typeId, updatedAt: at })
            // The name read is the guard released; the replacement must still be a live type (checked below).
            .where((attr, op) => `${op.eq(attr.isOrgDefault, false)} AND ${op.eq(attr.name, type.name)} AND ${op.notExists(attr.replacedBy)}`)
            .commit(),
          changedConcurrently,
        ),
        guarded(
          e.ticketType.check({ orgId: ctx.org.orgId, typeId: replacement.typeId }).where((attr, op) => op.notExists(attr.replacedBy)).commit(),
          changedConcurrently,
        ),
        releaseName(e, ctx.org.orgId, 'ticketType', type.name),
        ...eventPuts(e, [jobRecord(RETYPE_JOB, ctx.org.orgId, ctx.clock, { subjectId: typeId, data: retyping })]),
      ]);
      return;
    }
    await transact((e) => [
      guarded(
        e.ticketType
          .delete({ orgId: ctx.org.orgId, typeId })
          // The name read is the guard released: a concurrent rename makes this fail (retry) rather than free the wrong name.
          .where((attr, op) => `${op.eq(attr.isOrgDefault, false)} AND ${op.eq(attr.ticketCount, 0)} AND ${op.eq(attr.name, type.name)}`)
          .commit(),
        () => new LostRace('The ticket type changed or gained tickets concurrently; retry'),
      ),
      releaseName(e, ctx.org.orgId, 'ticketType', type.name),
    ]);
  });
}
