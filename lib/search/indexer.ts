import { randomSecret } from '../core/ids.js';
import type { Clock } from '../core/clock.js';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentDb } from '../db/client.js';
import { isConditionFailure } from '../db/transact.js';

/**
 * The engine of a search index kept by the events function (ticket search, wiki search): it
 * brings one subject's term entries to the subject as it is now, then deletes the subject's
 * pending marker if no later write is pending. Any run indexes the current subject, so runs
 * replayed, repeated or out of order all end in the same entries.
 *
 * One run at a time per subject: a run holds the lease on the subject's search record
 * (LEASE_SECONDS, longer than the function's timeout) and sets `dirty` while it writes. Before
 * writing it records every entry it may add that the record does not list (`extra`), so a run
 * that dies midway leaves a record that says which entries may exist: the next run rewrites
 * them all and deletes what the subject no longer has. A run finding the lease held leaves the
 * subject to its holder and returns (it never holds up the stream behind it): the holder, once
 * done, indexes again while a later write is pending; a holder that died leaves its marker,
 * which the sweeper finds once the lease has run out (`sweepStaleMarkers`).
 */

/** What every search record holds, beside what its subject keeps in it. */
export interface SearchRecord {
  /** The subject's version the listed entries reflect (absent until a run finished). */
  version?: number;
  /** Entries a run may have written beyond those listed. */
  extra?: string[];
  /** A run began and did not finish. */
  dirty?: boolean;
}

/** A subject as a run reads it. */
export interface SubjectState<Entry> {
  /** The version the entries will reflect. */
  version: number;
  /** Its entries, by key. */
  want: Map<string, Entry>;
  /** The subject no longer exists: its entries go, then its record. */
  gone?: boolean;
}

/** One indexed subject: where its record is, how it is read, how its entries are written. */
export interface IndexSubject<Entry, Stored extends SearchRecord> {
  /** The record's table and key (from its entity), and the attributes it is created with (ElectroDB's identity attributes and the key's). */
  record: { TableName: string; Key: Record<string, unknown>; create: Record<string, unknown> };
  read(): Promise<SubjectState<Entry>>;
  /** The keys of the entries a record lists as written. */
  listed(record: Stored): string[];
  /** For a clean record: whether a listed entry already holds what `entry` holds (it is not written again). */
  holds(record: Stored): (key: string, entry: Entry) => boolean;
  /** What the record keeps once the entries are written: attributes set and removed. */
  kept(want: Map<string, Entry>): { set: Record<string, unknown>; remove: string[] };
  /**
   * Puts entries and deletes others (by key); anything left unprocessed throws. `before` says
   * what the entries were: `settled`, the entries are as `record` says (the last run finished),
   * or there are none (no run ever began: no record); not settled, a run died or failed midway.
   */
  write(puts: Entry[], deletes: string[], before: { settled: boolean; record?: Stored }): Promise<void>;
  /** The table and key of the subject's pending marker (it carries the `version` written). */
  marker: { TableName: string; Key: Record<string, unknown> };
}

/** The table and key of an item, from an ElectroDB `get(...).params()`. */
export function itemTarget(params: unknown): { TableName: string; Key: Record<string, unknown> } {
  const { TableName, Key } = params as { TableName: string; Key: Record<string, unknown> };
  return { TableName, Key };
}

/** The attributes ElectroDB identifies an item of an entity by (its name and version): a record created by a raw write carries them. */
export function identityOf(entity: { schema: { model: { entity: string; version: string } } }): Record<string, string> {
  return { __edb_e__: entity.schema.model.entity, __edb_v__: entity.schema.model.version };
}

/** Runs in a row for one subject while writes keep coming (beyond that, the sweeper continues). */
const MAX_RUNS = 10;
/** The lease lasts longer than any run (the events function's timeout is far shorter). */
const LEASE_SECONDS = 120;
/** How long a run waits for a lease another run holds before it leaves the subject to that run. */
const LEASE_WAIT_MS = 2_000;

const BUSY = Symbol('busy');

/** Indexes a subject, again while a write after the version indexed is pending (up to MAX_RUNS). */
export async function indexSubject<Entry, Stored extends SearchRecord>(subject: IndexSubject<Entry, Stored>, clock: Clock): Promise<void> {
  for (let run = 0; run < MAX_RUNS; run += 1) {
    const indexed = await indexOnce(subject, clock);
    // Done, or left to the lease's holder; otherwise a write after the version indexed is pending
    // (its own job may have found the lease held): index again.
    if (indexed === undefined || (await clearMarker(subject.marker, indexed))) return;
  }
}

/**
 * A job's run (the events function): indexes the subject only while its pending marker stands.
 * No marker means a run already indexed every write (a later write's job, run first, took this
 * one's too; or the job is replayed after a restart): nothing to do, and nothing written, so
 * replayed and duplicate jobs cost one read, never a lease taken and given back (two writes of the
 * record each, which would feed the stream the consumer reads).
 */
export async function indexPendingSubject<Entry, Stored extends SearchRecord>(subject: IndexSubject<Entry, Stored>, clock: Clock): Promise<void> {
  const { Item } = await documentDb().send(new GetCommand({ ...subject.marker, ConsistentRead: true, ProjectionExpression: '#version', ExpressionAttributeNames: { '#version': 'version' } }));
  if (!Item) return;
  await indexSubject(subject, clock);
}

/** Deletes the pending marker unless a write after `version` is pending; false when one is. */
async function clearMarker(marker: IndexSubject<unknown, SearchRecord>['marker'], version: number): Promise<boolean> {
  try {
    await documentDb().send(
      new DeleteCommand({ ...marker, ConditionExpression: 'attribute_not_exists(#version) OR #version <= :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}

/**
 * One run: the subject read, its lease taken, the entries this run may add recorded
 * (write-ahead), the entries brought to the subject as read. Answers the version the index
 * now reflects, or undefined when another run holds the lease.
 */
async function indexOnce<Entry, Stored extends SearchRecord>(subject: IndexSubject<Entry, Stored>, clock: Clock): Promise<number | undefined> {
  const token = randomSecret(12);
  let state = await subject.read();
  const previous = await acquireLease<Stored>(subject.record, token, clock);
  if (previous === BUSY) return undefined;
  try {
    // Read before a run that has since indexed a later version (and left its record dirty after): never index backwards.
    if (previous?.dirty && (previous.version ?? 0) > state.version) state = await subject.read();
    const listed = previous ? subject.listed(previous) : [];
    const known = new Set([...listed, ...(previous?.extra ?? [])]);
    const adding = [...state.want.keys()].filter((key) => !known.has(key));
    if (adding.length > 0) await update(subject.record, token, { set: { extra: [...(previous?.extra ?? []), ...adding] }, remove: [] });
    return await indexLeased(subject, token, state, previous, listed, known);
  } catch (error) {
    // The lease was lost (the record deleted with its space, or taken once this run outlived it):
    // the subject is left to whoever holds it now, or to the sweeper, which finds its marker.
    if (isConditionFailure(error)) return undefined;
    // Failed midway (the job is retried): the lease goes, `dirty` stays, so the retry rewrites every entry.
    await update(subject.record, token, { set: {}, remove: LEASE }).catch(() => undefined);
    throw error;
  }
}

const LEASE = ['leaseToken', 'leaseUntil'];

/** The run's work under its lease: the entries written by difference from what the record says, then what was indexed stored. */
async function indexLeased<Entry, Stored extends SearchRecord>(
  subject: IndexSubject<Entry, Stored>,
  token: string,
  state: SubjectState<Entry>,
  previous: Stored | undefined,
  listed: string[],
  known: Set<string>,
): Promise<number> {
  // The index already reflects this version or a later one (this run read the subject before another run finished).
  if (previous && !previous.dirty && previous.version !== undefined && previous.version >= state.version) {
    await update(subject.record, token, { set: { dirty: false, extra: [] }, remove: LEASE });
    return previous.version;
  }
  const confirmed = new Set(listed);
  const holds = previous && !previous.dirty ? subject.holds(previous) : () => false;
  const puts = [...state.want].filter(([key, entry]) => !(confirmed.has(key) && holds(key, entry))).map(([, entry]) => entry);
  await subject.write(puts, [...known].filter((key) => !state.want.has(key)), { settled: !previous?.dirty, ...(previous ? { record: previous } : {}) });
  if (state.gone) {
    await documentDb().send(new DeleteCommand({ ...recordTarget(subject.record), ConditionExpression: '#token = :token', ExpressionAttributeNames: { '#token': 'leaseToken' }, ExpressionAttributeValues: { ':token': token } }));
  } else {
    const kept = subject.kept(state.want);
    await update(subject.record, token, { set: { ...kept.set, version: state.version, extra: [], dirty: false }, remove: [...LEASE, ...kept.remove] });
  }
  return state.version;
}

const recordTarget = (record: IndexSubject<unknown, SearchRecord>['record']) => ({ TableName: record.TableName, Key: record.Key });

/** A write of the record under the run's lease. */
async function update(record: IndexSubject<unknown, SearchRecord>['record'], token: string, change: { set: Record<string, unknown>; remove: string[] }): Promise<void> {
  const names: Record<string, string> = { '#token': 'leaseToken' };
  const values: Record<string, unknown> = { ':token': token };
  const sets = Object.entries(change.set).map(([name, value], index) => {
    names[`#s${index}`] = name;
    values[`:s${index}`] = value;
    return `#s${index} = :s${index}`;
  });
  const removes = change.remove.map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  const expression = [sets.length > 0 ? `SET ${sets.join(', ')}` : '', removes.length > 0 ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
  await documentDb().send(
    new UpdateCommand({ ...recordTarget(record), UpdateExpression: expression, ConditionExpression: '#token = :token', ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
  );
}

/**
 * Takes the lease of the subject's search record (created when missing) and marks it dirty, in
 * one write; answers the record as it was before (undefined when there was none), or BUSY when
 * another run holds a lease that has not run out after LEASE_WAIT_MS.
 */
async function acquireLease<Stored extends SearchRecord>(record: IndexSubject<unknown, SearchRecord>['record'], token: string, clock: Clock): Promise<Stored | undefined | typeof BUSY> {
  const deadline = Date.now() + LEASE_WAIT_MS;
  const identity = Object.entries(record.create);
  for (let attempt = 0; ; attempt += 1) {
    const now = clock.now();
    try {
      const { Attributes } = await documentDb().send(
        new UpdateCommand({
          ...recordTarget(record),
          UpdateExpression: `SET ${identity.map((_, index) => `#i${index} = :i${index}`).join(', ')}, #token = :token, #until = :until, #dirty = :true`,
          ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
          ExpressionAttributeNames: { ...Object.fromEntries(identity.map(([name], index) => [`#i${index}`, name])), '#token': 'leaseToken', '#until': 'leaseUntil', '#dirty': 'dirty' },
          ExpressionAttributeValues: {
            ...Object.fromEntries(identity.map(([, value], index) => [`:i${index}`, value])),
            ':token': token,
            ':until': new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString(),
            ':now': now.toISOString(),
            ':true': true,
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return Attributes as Stored | undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (Date.now() > deadline) return BUSY;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 500)));
    }
  }
}

/**
 * The sweeper's part of an index: markers older than the lease (no run cleared them: the run
 * died holding the lease, or its job was left to it), read from the index's age partitions (in
 * parallel) by `older`, are indexed again by `reindex`, oldest first per partition.
 */
export async function sweepStaleMarkers<Marker>(
  clock: Clock,
  older: (before: string) => Promise<Marker[]>,
  reindex: (marker: Marker) => Promise<void>,
): Promise<number> {
  const markers = await older(new Date(clock.now().getTime() - LEASE_SECONDS * 1000).toISOString());
  for (const marker of markers) await reindex(marker);
  return markers.length;
}
