import { AppError, conflict } from '../core/errors.js';
import { db, type Db } from './service.js';

type WriteFunction = Parameters<Db['transaction']['write']>[0];
/** The entities as ElectroDB hands them to a transaction builder (each with `.commit()`). */
export type TransactionEntities = Parameters<WriteFunction>[0];
type TransactionItems = ReturnType<WriteFunction>;

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

/** Attempts of a transaction that lost only to concurrent transactions (TransactionConflict). */
const CONFLICT_ATTEMPTS = 4;

/**
 * Runs one TransactWriteItems. When a condition fails, `onConditionFailed(index)` names
 * the domain error for the item at that position (the order the builder returned them).
 * A transaction cancelled only because another transaction was touching one of its items
 * (TransactionConflict: shared counters such as column counts, slots, day aggregates) wrote
 * nothing and is sent again, up to 4 attempts with a short jittered pause; if it still
 * conflicts, 409 CONFLICT. Nothing is ever half-written.
 */
export async function transact(
  build: (entities: TransactionEntities) => TransactionItems,
  onConditionFailed: (index: number) => AppError = () => conflict('The resource changed concurrently; retry'),
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await db()
      .transaction.write(((entities: TransactionEntities) => {
        const items = build(entities);
        if (items.length > MAX_TRANSACTION_ITEMS) throw new TransactionTooLargeError(items.length);
        return items;
      }) as WriteFunction)
      .go();
    if (!result.canceled) return;
    const reasons = result.data as unknown as { code: string }[];
    const failed = reasons.findIndex((reason) => reason.code === 'ConditionalCheckFailed');
    if (failed >= 0) throw onConditionFailed(failed);
    const onlyConflicts = reasons.every((reason) => reason.code === 'None' || reason.code === 'TransactionConflict');
    if (onlyConflicts && attempt < CONFLICT_ATTEMPTS) {
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20 * attempt));
      continue;
    }
    throw conflict('The resource changed concurrently; retry', {
      reasons: reasons.map((reason) => reason.code).filter((code) => code !== 'None'),
    });
  }
}

/** True when an ElectroDB/SDK error is a failed condition on a single-item write. */
export function isConditionFailure(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const cause = (error as { cause?: { name?: string } }).cause;
  const name = (error as { name?: string }).name;
  return name === 'ConditionalCheckFailedException' || cause?.name === 'ConditionalCheckFailedException';
}
