import { db } from '../../lib/db/service.js';
import { enqueueDeliveries, messageOf } from '../../lib/webhooks/index.js';

/**
 * The local queue (fauxqs) lives in this process's memory, while DATA_DIR keeps the table: a
 * restart would strand every delivery still waiting for its (first or next) attempt, whose
 * message died with the last process. SQS keeps its messages; here, at start, before any
 * poller runs, each pending delivery is released from the message that last took it and
 * queued again. A delivery that was waiting for a retry is tried at once instead of after its
 * pause. A Scan, not a Query, because it runs once per start of the local runtime over a local
 * table, and never in a request.
 */
export async function requeuePendingDeliveries(): Promise<number> {
  const deliveries = db().entities.webhookDelivery;
  const { data } = await deliveries.scan.where((attr, op) => op.eq(attr.state, 'pending')).go({ pages: 'all' });
  for (const delivery of data) {
    const { orgId, endpointId, deliveryId } = delivery;
    await deliveries.patch({ orgId, endpointId, deliveryId }).remove(['messageId', 'inFlightUntil']).go({ response: 'none' });
  }
  await enqueueDeliveries(data.map(messageOf));
  return data.length;
}
