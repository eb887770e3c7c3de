import { type AppError, Conflict } from '../core/errors.js';
import { guarded, type TransactionEntities } from '../db/transact.js';
import type { UniqueNameScope } from '../db/entities/index.js';

/**
 * Names of statuses, ticket types, labels and custom fields are unique per organization,
 * case-insensitively. Each module answers it twice:
 * - `assertNameFree` over the organization's items it has already read (one consistent
 *   Query), for a friendly early 409 — it also covers items created before name guards
 *   existed;
 * - a `UniqueName` guard item claimed (`claimName`, a create) in the same transaction as the
 *   item that takes the name, released (`releaseName`, a delete) in the transaction that
 *   renames or deletes it, so two concurrent writes of one name cannot both commit.
 */

/** The form names are compared in: NFC, lower case. */
export const comparableName = (name: string): string => name.normalize('NFC').toLowerCase();

/** The 409 a taken name gets, from the Query check and from a failed guard alike. */
export const nameTaken = (what: string, name: string): AppError => new Conflict(`A ${what} named "${name}" already exists`, { field: 'name' });

export interface NameCheck<T> {
  idOf: (item: T) => string;
  nameOf: (item: T) => string;
  /** The item being renamed, which may keep (or re-case) its own name. */
  exceptId?: string;
  /** How the error names the kind of item ("status", "ticket type", …). */
  what: string;
}

/** Refuses with 409 CONFLICT `{field: 'name'}` when another of `items` has the name. */
export function assertNameFree<T>(items: readonly T[], name: string, check: NameCheck<T>): void {
  const wanted = comparableName(name);
  if (items.some((item) => check.idOf(item) !== check.exceptId && comparableName(check.nameOf(item)) === wanted)) {
    throw nameTaken(check.what, name);
  }
}

/** True when a rename changes the comparable name (only then do the guards move). */
export const nameChanges = (from: string, to: string | undefined): to is string =>
  to !== undefined && comparableName(from) !== comparableName(to);

/** Transaction item: takes the name for `ownerId`; when the name is held it fails with `taken()`. */
export function claimName(e: TransactionEntities, orgId: string, scope: UniqueNameScope, name: string, ownerId: string, taken: () => Error) {
  return guarded(e.uniqueName.create({ orgId, scope, name: comparableName(name), ownerId }).commit(), taken);
}

/**
 * Transaction item: frees the name. Unconditional, so it does not fail when the guard does
 * not exist (items created before guards existed have none).
 */
export function releaseName(e: TransactionEntities, orgId: string, scope: UniqueNameScope, name: string) {
  return e.uniqueName.delete({ orgId, scope, name: comparableName(name) }).commit();
}
