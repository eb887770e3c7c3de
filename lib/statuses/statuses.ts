import { conflict, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, inTransactionChunks, transact, type TransactionEntities } from '../db/transact.js';
import type { StatusCategory, StatusItem } from '../db/entities/index.js';
import { eventPuts, jobKind, jobRecord, type JobPayload } from '../events/index.js';
import { requirePermission, assertNameFree as assertFree, claimName, nameChanges, nameTaken, releaseName } from '../organizations/index.js';

/**
 * Upper bound of statuses per organization: a reorder rewrites them all in one
 * TransactWriteItems, which holds at most 100 items.
 */
export const MAX_STATUSES_PER_ORGANIZATION = 100;

const changedConcurrently = () => new LostRace('The statuses changed concurrently; retry');

export function presentStatus(status: StatusItem) {
  return {
    id: status.statusId,
    key: status.key,
    name: status.name,
    color: status.color,
    category: status.category,
    order: status.order,
    isDefault: status.isDefault,
    isFinal: status.isFinal,
    isMandatory: status.isMandatory,
    enabledByDefault: status.enabledByDefault,
    createdAt: status.createdAt,
    updatedAt: status.updatedAt,
  };
}

const byDisplayOrder = (a: StatusItem, b: StatusItem): number =>
  a.order - b.order || a.name.localeCompare(b.name) || a.statusId.localeCompare(b.statusId);

/** The organization's statuses in display order (order, then name): one consistent Query. */
export async function loadOrganizationStatuses(orgId: string): Promise<StatusItem[]> {
  const { data } = await db().entities.status.query.byOrg({ orgId }).go({ pages: 'all', consistent: true });
  return data.sort(byDisplayOrder);
}

async function loadStatus(ctx: DomainContext, statusId: string): Promise<StatusItem> {
  const status = (await db().entities.status.get({ orgId: ctx.org.orgId, statusId }).go({ consistent: true })).data;
  if (!status) throw notFound('Status');
  return status;
}

const findStatus = (statuses: StatusItem[], statusId: string): StatusItem => {
  const status = statuses.find((candidate) => candidate.statusId === statusId);
  if (!status) throw notFound('Status');
  return status;
};

export async function listStatuses(ctx: DomainContext) {
  return (await loadOrganizationStatuses(ctx.org.orgId)).map(presentStatus);
}

export const getStatus = async (ctx: DomainContext, statusId: string) => presentStatus(await loadStatus(ctx, statusId));

/** Names are unique per organization, case-insensitively (lib/organizations/unique-names.ts). */
const assertNameFree = (statuses: StatusItem[], name: string, exceptId?: string): void =>
  assertFree(statuses, name, { idOf: (status) => status.statusId, nameOf: (status) => status.name, exceptId, what: 'status' });

/** New tickets start in the default status, so it cannot be one that marks them completed. */
function assertCanBeDefault(category: StatusCategory, isFinal: boolean, field: 'isDefault' | 'category' = 'isDefault'): void {
  if (category === 'FINAL' || isFinal) throw invalidField(field, 'A FINAL status cannot be the default status');
}

/**
 * The key agent policies and transitions refer to (e.g. IN_PROGRESS): the name upper-cased
 * with accents dropped and every run of other characters turned into one '_'; a numeric
 * suffix keeps it unique within the organization.
 */
export function statusKeyFor(name: string, takenKeys: ReadonlySet<string>): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'STATUS';
  if (!takenKeys.has(base)) return base;
  for (let suffix = 2; ; suffix += 1) {
    const candidate = `${base}_${suffix}`;
    if (!takenKeys.has(candidate)) return candidate;
  }
}

/** Clears the flag on the previous default in the same transaction that sets the new one. */
function clearDefault(e: TransactionEntities, previous: StatusItem, at: string) {
  return guarded(
    e.status
      .patch({ orgId: previous.orgId, statusId: previous.statusId })
      .set({ isDefault: false, updatedAt: at })
      .where((attr, op) => op.eq(attr.isDefault, true))
      .commit(),
    changedConcurrently,
  );
}

export interface CreateStatusInput {
  name: string;
  color: string;
  category: StatusCategory;
  order?: number;
  isDefault: boolean;
  isFinal?: boolean;
  isMandatory: boolean;
  enabledByDefault: boolean;
}

/**
 * One consistent Query of the organization's statuses answers name uniqueness, the key
 * suffix, the default order and the current default; then one transaction writes the new
 * status with the guards of its name and key and, when it becomes the default, clears the
 * previous one. A guard taken concurrently fails the transaction: 409 either way.
 */
export async function createStatus(ctx: DomainContext, input: CreateStatusInput) {
  requirePermission(ctx, 'settings:manage-statuses');
  return retryLostRaces(async () => {
    const statuses = await loadOrganizationStatuses(ctx.org.orgId);
    if (statuses.length >= MAX_STATUSES_PER_ORGANIZATION) {
      throw conflict(`An organization has at most ${MAX_STATUSES_PER_ORGANIZATION} statuses`);
    }
    assertNameFree(statuses, input.name);
    const isFinal = input.isFinal ?? input.category === 'FINAL';
    if (input.isDefault) assertCanBeDefault(input.category, isFinal);
    const at = ctx.clock.now().toISOString();
    const status: StatusItem = {
      orgId: ctx.org.orgId,
      statusId: newId('sts'),
      key: statusKeyFor(input.name, new Set(statuses.map((existing) => existing.key))),
      name: input.name,
      color: input.color,
      category: input.category,
      order: input.order ?? Math.max(-1, ...statuses.map((existing) => existing.order)) + 1,
      isDefault: input.isDefault,
      isFinal,
      isMandatory: input.isMandatory,
      enabledByDefault: input.enabledByDefault,
      createdAt: at,
      updatedAt: at,
    };
    const previousDefault = input.isDefault ? statuses.find((existing) => existing.isDefault) : undefined;
    await transact((e) => [
      guarded(e.status.create(status).commit(), changedConcurrently),
      claimName(e, status.orgId, 'status', status.name, status.statusId, () => nameTaken('status', status.name)),
      claimName(e, status.orgId, 'statusKey', status.key, status.statusId, changedConcurrently),
      ...(previousDefault ? [clearDefault(e, previousDefault, at)] : []),
    ]);
    return presentStatus(status);
  });
}

/**
 * The background job of a category change (run by lib/tickets/lists/recategorize.ts): it moves
 * the status's tickets to the new category, which they carry in their board index key.
 * Statuses never import tickets, so the job's kind (its name and payload) is declared here.
 */
export const RECATEGORIZE_JOB = jobKind(
  'statuses.recategorize',
  (z) => z.object({
    statusId: z.string(),
    /** The status's `recategorizing` mark: a later category change's job supersedes this one. */
    jobId: z.string(),
    /** Who changed the category: the claims it ends are released by them. */
    actorId: z.string(),
    actorName: z.string(),
    /** The last board this walk is done with (boards in id order; absent: none yet). */
    after: z.optional(z.string()),
    /** Whether the walk over the boards so far moved a ticket (then another walk checks for none left). */
    moved: z.optional(z.boolean()),
    /** Walks over the boards so far, after the first. */
    pass: z.optional(z.int().check(z.nonnegative())),
  }),
);
export type Recategorizing = JobPayload<typeof RECATEGORIZE_JOB>;

export interface UpdateStatusInput {
  name?: string;
  color?: string;
  category?: StatusCategory;
  order?: number;
  isDefault?: boolean;
}

/**
 * Changing the category re-derives `isFinal` (a status moved out of FINAL must stop marking
 * tickets completed) and, in the same transaction, marks the status `recategorizing` and
 * records the job that moves its tickets: the request answers at once, however many tickets
 * the status holds. The write is guarded by the read `updatedAt` (optimistic locking); a
 * rename moves the name guard in the same transaction. The key stays as it was.
 */
export async function updateStatus(ctx: DomainContext, statusId: string, input: UpdateStatusInput) {
  requirePermission(ctx, 'settings:manage-statuses');
  return retryLostRaces(async () => {
    const statuses = await loadOrganizationStatuses(ctx.org.orgId);
    const status = findStatus(statuses, statusId);
    if (input.name !== undefined) assertNameFree(statuses, input.name, statusId);
    if (status.isDefault && input.isDefault === false) {
      throw invalidField('isDefault', 'There is always one default status; make another status the default instead');
    }
    const category = input.category ?? status.category;
    const isFinal = category === status.category ? status.isFinal : category === 'FINAL';
    const isDefault = input.isDefault ?? status.isDefault;
    if (isDefault) assertCanBeDefault(category, isFinal, input.isDefault ? 'isDefault' : 'category');
    const at = ctx.clock.now().toISOString();
    const changes = {
      name: input.name ?? status.name,
      color: input.color ?? status.color,
      category,
      order: input.order ?? status.order,
      isDefault,
      isFinal,
      updatedAt: at,
    };
    const previousDefault = isDefault && !status.isDefault ? statuses.find((existing) => existing.isDefault) : undefined;
    const renamed = nameChanges(status.name, input.name);
    const recategorizing: Recategorizing | undefined = category !== status.category ? { statusId, jobId: newId('job'), actorId: ctx.actor.userId, actorName: ctx.actor.name } : undefined;
    await transact((e) => [
      guarded(
        e.status
          .patch({ orgId: ctx.org.orgId, statusId })
          .set(recategorizing ? { ...changes, recategorizing: recategorizing.jobId } : changes)
          .where((attr, op) => op.eq(attr.updatedAt, status.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      ...(renamed
        ? [releaseName(e, ctx.org.orgId, 'status', status.name), claimName(e, ctx.org.orgId, 'status', changes.name, statusId, () => nameTaken('status', changes.name))]
        : []),
      ...(previousDefault ? [clearDefault(e, previousDefault, at)] : []),
      ...(recategorizing ? eventPuts(e, [jobRecord(RECATEGORIZE_JOB, ctx.org.orgId, ctx.clock, { subjectId: statusId, data: recategorizing })]) : []),
    ]);
    return presentStatus({ ...status, ...changes });
  });
}

/**
 * Mandatory and default statuses are refused with 409: the caller may manage statuses, it is
 * the status's state that forbids the deletion. The delete repeats both rules as conditions
 * and releases the name and key guards in the same transaction.
 */
export async function deleteStatus(ctx: DomainContext, statusId: string): Promise<void> {
  requirePermission(ctx, 'settings:manage-statuses');
  await retryLostRaces(async () => {
    const status = await loadStatus(ctx, statusId);
    if (status.isMandatory) throw conflict(`"${status.name}" is a mandatory status and cannot be deleted`, { reason: 'MANDATORY_STATUS' });
    if (status.isDefault) {
      throw conflict(`"${status.name}" is the default status; make another status the default before deleting it`, { reason: 'DEFAULT_STATUS' });
    }
    await transact((e) => [
      guarded(
        e.status
          .delete({ orgId: ctx.org.orgId, statusId })
          // The name read is the guard released: a concurrent rename makes this fail (retry) rather than free the wrong name.
          .where((attr, op) => `${op.eq(attr.isMandatory, false)} AND ${op.eq(attr.isDefault, false)} AND ${op.eq(attr.name, status.name)}`)
          .commit(),
        changedConcurrently,
      ),
      releaseName(e, ctx.org.orgId, 'status', status.name),
      releaseName(e, ctx.org.orgId, 'statusKey', status.key),
    ]);
  });
}

/** `statusIds` must name every status of the organization exactly once. */
function assertPermutation(statuses: StatusItem[], statusIds: string[]): void {
  const known = new Set(statuses.map((status) => status.statusId));
  const seen = new Set<string>();
  statusIds.forEach((statusId, index) => {
    if (!known.has(statusId)) throw invalidField(`statusIds.${index}`, 'Unknown status');
    if (seen.has(statusId)) throw invalidField(`statusIds.${index}`, 'Listed twice');
    seen.add(statusId);
  });
  const missing = statuses.filter((status) => !seen.has(status.statusId)).map((status) => status.statusId);
  if (missing.length > 0) throw invalidField('statusIds', `Must list every status of the organization; missing ${missing.join(', ')}`);
}

/** Assigns order 0..n-1 in the given sequence; only statuses whose order changes are written, in one transaction. */
export async function reorderStatuses(ctx: DomainContext, statusIds: string[]) {
  requirePermission(ctx, 'settings:manage-statuses');
  return retryLostRaces(async () => {
    const statuses = await loadOrganizationStatuses(ctx.org.orgId);
    assertPermutation(statuses, statusIds);
    const at = ctx.clock.now().toISOString();
    const position = new Map(statusIds.map((statusId, order) => [statusId, order]));
    const reordered = statuses.map((status) => {
      const order = position.get(status.statusId)!;
      return order === status.order ? status : { ...status, order, updatedAt: at };
    });
    const changed = reordered.filter((status, index) => status !== statuses[index]);
    // One transaction for any organization within the status limit; a larger one (possible only
    // after concurrent creates) is written in bounded steps, each of which may be sent again.
    for (const chunk of inTransactionChunks(changed)) {
      await transact((e) =>
        chunk.map((status) =>
          guarded(e.status.patch({ orgId: ctx.org.orgId, statusId: status.statusId }).set({ order: status.order, updatedAt: at }).commit(), changedConcurrently),
        ),
      );
    }
    return reordered.sort(byDisplayOrder).map(presentStatus);
  });
}
