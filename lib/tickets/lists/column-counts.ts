import { db } from '../../db/service.js';
import type { ColumnCountItem } from '../../db/entities/index.js';

/** A board's column counts by status id: its ColumnCount items (one Query, pk orgId + boardId), shards summed. */
export async function loadColumnCounts(orgId: string, boardId: string): Promise<Map<string, ColumnCountItem>> {
  const { data } = await db().entities.columnCount.query.byBoard({ orgId, boardId }).go({ pages: 'all' });
  const counts = new Map<string, ColumnCountItem>();
  for (const shard of data) {
    const count = counts.get(shard.statusId);
    if (!count) {
      counts.set(shard.statusId, { ...shard });
      continue;
    }
    count.total += shard.total;
    count.archived += shard.archived;
    count.claimed = (count.claimed ?? 0) + (shard.claimed ?? 0);
    count.claimedArchived = (count.claimedArchived ?? 0) + (shard.claimedArchived ?? 0);
    count.queued = (count.queued ?? 0) + (shard.queued ?? 0);
  }
  return counts;
}
