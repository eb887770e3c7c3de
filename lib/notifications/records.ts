import { addSeconds, epochSeconds } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { NotificationItem } from '../db/entities/index.js';
import type { TransactionEntities } from '../db/transact.js';

/** Notifications live 90 days (TTL housekeeping). */
const NOTIFICATION_RETENTION_SECONDS = 90 * 24 * 3600;

/**
 * The transaction item that notifies `userId`, written in the same transaction as the change
 * it tells of (a lease that lapsed, a suggestion waiting, an endpoint disabled).
 */
export function notificationPut(
  e: TransactionEntities,
  input: { orgId: string; userId: string; type: NotificationItem['type']; data: Record<string, unknown> },
  now: Date,
) {
  return e.notification
    .create({
      ...input,
      notificationId: newId('ntf'),
      createdAt: now.toISOString(),
      ttl: epochSeconds(addSeconds(now, NOTIFICATION_RETENTION_SECONDS)),
    })
    .commit();
}
