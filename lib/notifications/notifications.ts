import type { DomainContext } from '../db/context.js';
import { notFound } from '../core/errors.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { NotificationItem } from '../db/entities/index.js';
import { pageOf } from '../core/pages.js';

export function presentNotification(notification: NotificationItem) {
  return {
    id: notification.notificationId,
    type: notification.type,
    data: notification.data ?? {},
    readAt: notification.readAt ?? null,
    createdAt: notification.createdAt,
  };
}

/** GET /api/v1/notifications: the caller's notifications, newest first (ULID order), paginated. */
export async function listNotifications(ctx: DomainContext, query: { page: number; limit: number }) {
  const result = await db()
    .entities.notification.query.byUser({ orgId: ctx.org.orgId, userId: ctx.actor.userId })
    .go({ pages: 'all', order: 'desc' });
  const items = (result.data as NotificationItem[]).sort((a, b) => b.notificationId.localeCompare(a.notificationId));
  return pageOf(items.map(presentNotification), query.page, query.limit);
}

/** POST /api/v1/notifications/{id}/read: marks one of the caller's notifications read (idempotent). */
export async function markNotificationRead(ctx: DomainContext, notificationId: string): Promise<void> {
  try {
    await db()
      .entities.notification.patch({ orgId: ctx.org.orgId, userId: ctx.actor.userId, notificationId })
      .set({ readAt: ctx.clock.now().toISOString() })
      .where((attr, op) => op.notExists(attr.readAt))
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Missing (404) or already read (keep the first readAt): one read tells which.
    const found = await db().entities.notification.get({ orgId: ctx.org.orgId, userId: ctx.actor.userId, notificationId }).go();
    if (!found.data) throw notFound('Notification');
  }
}
