import { describe, expect, it } from 'vitest';
import { db } from '../../lib/db/service.js';
import { guarded, transact } from '../../lib/db/transact.js';
import { eventPuts, newEventRecord } from '../../lib/events/outbox.js';
import { consumeStreamRecords, type DispatchedEvent, type StreamRecordLike } from '../../lib/events/consumer.js';
import { conflict } from '../../lib/core/errors.js';
import { systemClock } from '../../lib/core/clock.js';
import { marshall } from '@aws-sdk/util-dynamodb';
import { signupOrg } from '../support/api.js';

/** The outbox record's key (its subject's partition, then its id). */
interface EventKey {
  orgId: string;
  subjectId: string;
  eventId: string;
}
const keyOf = ({ orgId, subjectId, eventId }: EventKey): EventKey => ({ orgId, subjectId, eventId });

async function waitForDispatch(key: EventKey, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const item = (await db().entities.event.get(keyOf(key)).go()).data;
    if (item?.dispatchedAt) return item;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`event ${key.eventId} was not dispatched in time`);
}

describe('event write path', () => {
  it('stores a change and its events in one transaction, and the stream consumer dispatches them', async () => {
    const org = await signupOrg();
    const at = new Date().toISOString();
    const record = newEventRecord(org.orgId, systemClock, { type: 'organization.renamed', data: { organizationId: org.orgId } });
    await transact((e) => [
      e.organization.patch({ orgId: org.orgId }).set({ name: 'Renamed', updatedAt: at }).commit(),
      ...eventPuts(e, [record]),
    ]);
    const dispatched = await waitForDispatch(record);
    expect(dispatched).toMatchObject({ type: 'organization.renamed', orgId: org.orgId, data: { organizationId: org.orgId } });
    expect((await db().entities.organization.get({ orgId: org.orgId }).go()).data?.name).toBe('Renamed');
  });

  it('writes neither the change nor its events when the change fails its condition', async () => {
    const org = await signupOrg();
    const record = newEventRecord(org.orgId, systemClock, { type: 'organization.renamed', data: {} });
    await expect(
      transact(
        (e) => [
          guarded(
            e.organization
              .patch({ orgId: org.orgId })
              .set({ name: 'Never' })
              .where((attr, op) => op.eq(attr.updatedAt, 'not-the-current-value'))
              .commit(),
            () => conflict('stale'),
          ),
          ...eventPuts(e, [record]),
        ],
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect((await db().entities.event.get(keyOf(record)).go()).data).toBeNull();
    expect((await db().entities.organization.get({ orgId: org.orgId }).go()).data?.name).not.toBe('Never');
  });

  /** Stores an event and waits until the live stream poller has dispatched it, so no test races the poller. */
  async function storedAndDispatched(type: string) {
    const org = await signupOrg();
    const record = newEventRecord(org.orgId, systemClock, { type, data: { n: 1 } });
    await db().entities.event.create(record).go();
    await waitForDispatch(record);
    const streamRecord: StreamRecordLike = {
      eventName: 'INSERT',
      dynamodb: { NewImage: marshall({ ...record, __edb_e__: 'event', __edb_v__: '1' }) as never, SequenceNumber: '42' },
    };
    return { record, streamRecord };
  }

  it('does not dispatch a redelivered stream record of an event that was already dispatched', async () => {
    const { streamRecord } = await storedAndDispatched('test.redelivered');
    const seen: DispatchedEvent[] = [];
    const result = await consumeStreamRecords([streamRecord, streamRecord], async (event) => void seen.push(event), systemClock);
    expect(seen).toEqual([]);
    expect(result.batchItemFailures).toEqual([]);
  });

  it('dispatches exactly once when the same record arrives twice', async () => {
    const { record, streamRecord } = await storedAndDispatched('test.once');
    await db().entities.event.patch(keyOf(record)).remove(['dispatchedAt']).go();
    const seen: DispatchedEvent[] = [];
    await consumeStreamRecords([streamRecord, streamRecord], async (event) => void seen.push(event), systemClock);
    expect(seen.map((event) => event.eventId)).toEqual([record.eventId]);
  });

  it('reports a failed dispatch as a batch item failure and lets the retry dispatch it', async () => {
    const { record, streamRecord } = await storedAndDispatched('test.retry');
    await db().entities.event.patch(keyOf(record)).remove(['dispatchedAt']).go();
    let attempts = 0;
    const flaky = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('receiver down');
    };
    const first = await consumeStreamRecords([streamRecord], flaky, systemClock);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: '42' }]);
    expect((await db().entities.event.get(keyOf(record)).go()).data?.dispatchedAt).toBeUndefined();
    const second = await consumeStreamRecords([streamRecord], flaky, systemClock);
    expect(second.batchItemFailures).toEqual([]);
    expect(second.dispatched.map((event) => event.eventId)).toEqual([record.eventId]);
  });

  it('ignores stream records that are not outbox events', async () => {
    const seen: DispatchedEvent[] = [];
    const result = await consumeStreamRecords(
      [
        { eventName: 'MODIFY', dynamodb: { NewImage: marshall({ __edb_e__: 'event', eventId: 'evt_x' }) as never } },
        { eventName: 'INSERT', dynamodb: { NewImage: marshall({ __edb_e__: 'board', boardId: 'brd_x' }) as never } },
      ],
      async (event) => void seen.push(event),
      systemClock,
    );
    expect(seen).toEqual([]);
    expect(result.batchItemFailures).toEqual([]);
  });
});
