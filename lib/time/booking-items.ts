import { notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { BookingItemItem } from '../db/entities/index.js';
import { assertBoardsExist } from '../boards/index.js';
import { requireAdmin } from '../organizations/index.js';
import { enterTimeTracking } from './access.js';

/** A booking item as the API shows it. `boardIds` empty: offered on every board. */
export function presentBookingItem(item: BookingItemItem) {
  return {
    id: item.bookingItemId,
    name: item.name,
    externalId: item.externalId ?? null,
    boardIds: [...item.boardIds],
    isActive: item.isActive,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

/** The reference an entry or a timer shows for its booking item (null once the item was deleted). */
export const bookingItemRef = (item: BookingItemItem | undefined) => (item ? { id: item.bookingItemId, name: item.name, externalId: item.externalId ?? null } : null);

export interface BookingItemQuery {
  boardId?: string;
  q?: string;
  isActive?: boolean;
}

/**
 * GET …/booking-items: the organization's items by name (one Query), those offered on
 * `boardId` (named in `boardIds`, or offered everywhere), whose name contains `q` (any case).
 */
export async function listBookingItems(ctx: DomainContext, query: BookingItemQuery) {
  enterTimeTracking(ctx, 'time-tracking:view');
  const { data } = await db().entities.bookingItem.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  const needle = query.q?.trim().toLowerCase();
  return data
    .filter((item) => !query.boardId || item.boardIds.length === 0 || item.boardIds.includes(query.boardId))
    .filter((item) => !needle || item.name.toLowerCase().includes(needle))
    .filter((item) => query.isActive === undefined || item.isActive === query.isActive)
    .sort((a, b) => a.name.localeCompare(b.name) || a.bookingItemId.localeCompare(b.bookingItemId))
    .map(presentBookingItem);
}

export interface BookingItemInput {
  name: string;
  externalId?: string | null;
  boardIds?: string[];
  isActive?: boolean;
}

/** POST …/booking-items (administrators). */
export async function createBookingItem(ctx: DomainContext, input: BookingItemInput) {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage booking items');
  const boardIds = [...new Set(input.boardIds ?? [])];
  await assertBoardsExist(ctx, boardIds, 'boardIds');
  const now = ctx.clock.now().toISOString();
  const item: BookingItemItem = {
    orgId: ctx.org.orgId,
    bookingItemId: newId('bki'),
    name: input.name,
    ...(input.externalId ? { externalId: input.externalId } : {}),
    boardIds,
    isActive: input.isActive ?? true,
    createdAt: now,
    updatedAt: now,
  };
  await db().entities.bookingItem.create(item).go({ response: 'none' });
  return presentBookingItem(item);
}

async function loadBookingItem(ctx: DomainContext, bookingItemId: string): Promise<BookingItemItem> {
  const item = (await db().entities.bookingItem.get({ orgId: ctx.org.orgId, bookingItemId }).go()).data;
  if (!item) throw notFound('Booking item');
  return item;
}

/** PATCH …/booking-items/{id} (administrators); `externalId: null` clears it. */
export async function updateBookingItem(ctx: DomainContext, bookingItemId: string, input: Partial<BookingItemInput>) {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage booking items');
  return retryLostRaces(async () => {
    const [item] = await Promise.all([loadBookingItem(ctx, bookingItemId), assertBoardsExist(ctx, input.boardIds ?? [], 'boardIds')]);
    const updated: BookingItemItem = {
      ...item,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.boardIds !== undefined ? { boardIds: [...new Set(input.boardIds)] } : {}),
      ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
      updatedAt: ctx.clock.now().toISOString(),
    };
    if (input.externalId === null) delete updated.externalId;
    else if (input.externalId !== undefined) updated.externalId = input.externalId;
    try {
      // Guarded by the updatedAt read: a concurrent change is not silently overwritten.
      await db().entities.bookingItem.put(updated).where((attr, op) => op.eq(attr.updatedAt, item.updatedAt)).go({ response: 'none' });
    } catch (error) {
      if (isConditionFailure(error)) throw new LostRace('The booking item changed concurrently; retry');
      throw error;
    }
    return presentBookingItem(updated);
  });
}

/**
 * DELETE …/booking-items/{id} (administrators). Entries booked on it keep its id (they then
 * show `bookingItem: null`); deactivating (`isActive: false`) retires an item and keeps its name.
 */
export async function deleteBookingItem(ctx: DomainContext, bookingItemId: string): Promise<void> {
  enterTimeTracking(ctx);
  requireAdmin(ctx, 'manage booking items');
  try {
    await db().entities.bookingItem.delete({ orgId: ctx.org.orgId, bookingItemId }).where((attr, op) => op.exists(attr.bookingItemId)).go({ response: 'none' });
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Booking item');
    throw error;
  }
}
