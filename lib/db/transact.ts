import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Service } from 'electrodb';
import { conflict } from '../core/errors.js';
import { documentDb } from './client.js';
import { db } from './service.js';
import type { Entities } from './schema.js';
import { raceBudget } from './races.js';

type WriteFunction = Parameters<Service<Entities>['transaction']['write']>[0];
/**
 * The entities as a transaction builder sees them: the same objects as `db().entities`, typed
 * the way ElectroDB types a transaction's entities (operations end in `.commit()`, and
 * `.check()` builds a condition-only item).
 */
export type TransactionEntities = Parameters<WriteFunction>[0];
/** One TransactWriteItems item, as an entity operation's `.commit()` builds it. */
type CommittedItem =
  | { Put: Record<string, unknown> }
  | { Update: Record<string, unknown> }
  | { Delete: Record<string, unknown> }
  | { ConditionCheck: Record<string, unknown> };

/**
 * A transaction item that carries the failure its condition means: the guard is built beside
 * its condition and names the domain error (or LostRace), so no caller maps failures by the
 * item's position and adding an item breaks nothing.
 */
export class Guarded {
  constructor(
    readonly item: CommittedItem,
    readonly failure: () => Error,
  ) {}
}

/** `item`, whose failed condition means `failure()`. */
export const guarded = (item: CommittedItem, failure: () => Error): Guarded => new Guarded(item, failure);

/** What a transaction builder returns: plain items (a failed condition is a generic 409) and guarded ones. */
export type TransactionItem = CommittedItem | Guarded;

/**
 * DynamoDB's limit of items per TransactWriteItems. An operation whose item count depends on
 * data must split its work into bounded, idempotent steps (see `inTransactionChunks`); a
 * transaction over the limit is a programming error, refused here before anything is sent.
 */
export const MAX_TRANSACTION_ITEMS = 100;

/** Splits items into chunks that fit one transaction beside `reserved` other items. */
export function inTransactionChunks<T>(items: readonly T[], reserved = 0): T[][] {
  const size = MAX_TRANSACTION_ITEMS - reserved;
  if (size < 1) throw new Error(`No room for items beside ${reserved} reserved ones`);
  const chunks: T[][] = [];
  for (let offset = 0; offset < items.length; offset += size) chunks.push(items.slice(offset, offset + size));
  return chunks;
}

export class TransactionTooLargeError extends Error {
  constructor(readonly itemCount: number) {
    super(`A transaction of ${itemCount} items exceeds DynamoDB's limit of ${MAX_TRANSACTION_ITEMS}`);
    this.name = 'TransactionTooLargeError';
  }
}

/**
 * Runs one TransactWriteItems. When a condition fails, the failing item's own failure is thrown
 * (a guarded item's error; for a plain item, 409 CONFLICT). A transaction cancelled only because
 * another transaction was touching one of its items (TransactionConflict: shared counters such
 * as column counts, slots, day aggregates) wrote nothing and is sent again under the project's
 * race policy (lib/db/races.ts); if it keeps conflicting, 409 CONFLICT. Nothing is ever
 * half-written.
 */
export async function transact(build: (entities: TransactionEntities) => TransactionItem[]): Promise<void> {
  const budget = raceBudget();
  const mark = workMarks.getStore();
  for (let attempt = 1; ; attempt += 1) {
    const built = build(db().entities as unknown as TransactionEntities);
    if (built.length > MAX_TRANSACTION_ITEMS) throw new TransactionTooLargeError(built.length);
    if (built.length === 0) return;
    // The work of a keyed request commits with the mark that it was done (see `markingWork`), when there is room for it.
    const marked = mark !== undefined && built.length < MAX_TRANSACTION_ITEMS;
    const created = marked ? createdBy(built) : [];
    const entries = marked ? [...built, mark.item(db().entities as unknown as TransactionEntities, created)] : built;
    const reasons = await transactWrite(entries.map((entry) => (entry instanceof Guarded ? entry.item : entry)));
    if (!reasons) {
      if (marked) mark.committed();
      return;
    }
    const failed = entries[reasons.findIndex((reason) => reason.code === 'ConditionalCheckFailed')];
    if (failed) throw failed instanceof Guarded ? failed.failure() : conflict('The resource changed concurrently; retry');
    const onlyConflicts = reasons.every((reason) => reason.code === 'None' || reason.code === 'TransactionConflict');
    if (onlyConflicts && (await budget.pause(attempt))) continue;
    throw conflict('The resource changed concurrently; retry', {
      reasons: reasons.map((reason) => reason.code).filter((code) => code !== 'None'),
    });
  }
}

/**
 * The mark a keyed request's work carries (lib/db/idempotency.ts): an item added to every
 * transaction the request commits, which records on the idempotency record that the work took
 * effect, on condition that the request still holds its key. So the work and the record of it
 * commit together or not at all: a request that dies after its work committed leaves a record
 * that says so, and a request whose reservation another took over commits nothing.
 */
export interface WorkMark {
  /** The mark's item, given what the transaction creates. */
  item: (entities: TransactionEntities, created: CreatedRef[]) => Guarded;
  /** Called after each marked transaction committed. */
  committed: () => void;
}

/** An item a transaction created: its entity, and its id (`ticketId` of a ticket). */
export interface CreatedRef {
  type: string;
  id: string;
}

const workMarks = new AsyncLocalStorage<WorkMark>();

/** Runs `work` with every transaction it commits carrying `mark`. */
export const markingWork = <T>(mark: WorkMark, work: () => Promise<T>): Promise<T> => workMarks.run(mark, work);

/** Runs `work` with no mark: the service's own follow-up (a readiness recount) is not the keyed request's work. */
export const unmarkedWork = <T>(work: () => Promise<T>): Promise<T> => workMarks.exit(work);

/** The items a transaction puts, named by entity and id (an attribute `<entity>Id`). */
function createdBy(entries: TransactionItem[]): CreatedRef[] {
  const created: CreatedRef[] = [];
  for (const entry of entries) {
    const item = entry instanceof Guarded ? entry.item : entry;
    // A create (a Put on condition that the item is new), not a replacement of an existing item.
    if (!('Put' in item) || !String(item.Put.ConditionExpression ?? '').includes('attribute_not_exists')) continue;
    const attributes = (item.Put as { Item?: Record<string, unknown> }).Item ?? {};
    const type = attributes.__edb_e__;
    const id = typeof type === 'string' ? attributes[`${type}Id`] : undefined;
    // The event outbox is bookkeeping, not something the caller made.
    if (typeof type === 'string' && typeof id === 'string' && type !== 'event') created.push({ type, id });
  }
  return created;
}

/** Sends one TransactWriteItems; a cancelled transaction answers its per-item reasons, a committed one nothing. */
async function transactWrite(items: CommittedItem[]): Promise<{ code: string }[] | undefined> {
  try {
    await documentDb().send(new TransactWriteCommand({ TransactItems: items as never }));
    return undefined;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException) || !error.CancellationReasons) throw error;
    return error.CancellationReasons.map((reason) => ({ code: reason.Code ?? 'None' }));
  }
}

/** True when an SDK error, or the ElectroDB error wrapping one, is a failed condition on a single-item write. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error instanceof Error && error.cause instanceof ConditionalCheckFailedException);
}
