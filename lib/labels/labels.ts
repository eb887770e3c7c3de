import { conflict, forbidden, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, transact } from '../db/transact.js';
import type { LabelItem } from '../db/entities/index.js';
import { requirePermission, assertNameFree as assertFree, claimName, nameChanges, nameTaken, releaseName } from '../organizations/index.js';

/** Labels an organization may define (a ticket carries at most 50 of them). */
export const MAX_LABELS_PER_ORGANIZATION = 500;

export function presentLabel(label: LabelItem) {
  return {
    id: label.labelId,
    name: label.name,
    color: label.color,
    description: label.description,
    createdAt: label.createdAt,
    updatedAt: label.updatedAt,
  };
}

const byName = (a: LabelItem, b: LabelItem): number => a.name.localeCompare(b.name) || a.labelId.localeCompare(b.labelId);

/** The organization's labels by name: one consistent Query of its partition. */
async function loadOrganizationLabels(orgId: string): Promise<LabelItem[]> {
  const { data } = await db().entities.label.query.byOrg({ orgId }).go({ pages: 'all', consistent: true });
  return data.sort(byName);
}

/**
 * Label definitions are organization-wide, so their names may speak of other customers;
 * customer users see the labels of their own tickets on those tickets only.
 */
function requireInternalUser(ctx: DomainContext): void {
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot list the organization’s labels');
}

/** Names are unique per organization, case-insensitively (lib/organizations/unique-names.ts). */
const assertNameFree = (labels: LabelItem[], name: string, exceptId?: string): void =>
  assertFree(labels, name, { idOf: (label) => label.labelId, nameOf: (label) => label.name, exceptId, what: 'label' });

const changedConcurrently = () => new LostRace('The label changed concurrently; retry');


/** GET /api/v1/labels → {data: [label]} sorted by name. */
export async function listLabels(ctx: DomainContext) {
  requireInternalUser(ctx);
  return (await loadOrganizationLabels(ctx.org.orgId)).map(presentLabel);
}

export interface CreateLabelInput {
  name: string;
  color: string;
  description: string;
}

/**
 * One consistent Query answers name uniqueness and the organization's limit; one transaction
 * writes the label with its name guard.
 */
export async function createLabel(ctx: DomainContext, input: CreateLabelInput) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const labels = await loadOrganizationLabels(ctx.org.orgId);
    if (labels.length >= MAX_LABELS_PER_ORGANIZATION) throw conflict(`An organization has at most ${MAX_LABELS_PER_ORGANIZATION} labels`);
    assertNameFree(labels, input.name);
    const at = ctx.clock.now().toISOString();
    const label: LabelItem = { orgId: ctx.org.orgId, labelId: newId('lbl'), ...input, createdAt: at, updatedAt: at };
    await transact((e) => [
      guarded(e.label.create(label).commit(), changedConcurrently),
      claimName(e, label.orgId, 'label', label.name, label.labelId, () => nameTaken('label', label.name)),
    ]);
    return presentLabel(label);
  });
}

export interface UpdateLabelInput {
  name?: string;
  color?: string;
  description?: string;
}

/**
 * The write is guarded by the read `updatedAt` (optimistic locking), like ticket types; a
 * rename moves the name guard in the same transaction.
 */
export async function updateLabel(ctx: DomainContext, labelId: string, input: UpdateLabelInput) {
  requirePermission(ctx, 'tickets:edit');
  return retryLostRaces(async () => {
    const labels = await loadOrganizationLabels(ctx.org.orgId);
    const label = labels.find((candidate) => candidate.labelId === labelId);
    if (!label) throw notFound('Label');
    if (input.name !== undefined) assertNameFree(labels, input.name, labelId);
    const changes = {
      name: input.name ?? label.name,
      color: input.color ?? label.color,
      description: input.description ?? label.description,
      updatedAt: ctx.clock.now().toISOString(),
    };
    const renamed = nameChanges(label.name, input.name);
    await transact((e) => [
      guarded(
        e.label
          .patch({ orgId: ctx.org.orgId, labelId })
          .set(changes)
          .where((attr, op) => op.eq(attr.updatedAt, label.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      ...(renamed
        ? [releaseName(e, ctx.org.orgId, 'label', label.name), claimName(e, ctx.org.orgId, 'label', changes.name, labelId, () => nameTaken('label', changes.name))]
        : []),
    ]);
    return presentLabel({ ...label, ...changes });
  });
}

/**
 * Deletes the definition and frees its name in one transaction, guarded by the `updatedAt`
 * read (a concurrent rename makes it retry rather than free the wrong name). Tickets keep the
 * id until their next write (lazy cleanup): every ticket payload and the label filter already
 * ignore ids that no longer name a label, and ids are never reused.
 */
export async function deleteLabel(ctx: DomainContext, labelId: string): Promise<void> {
  requirePermission(ctx, 'tickets:edit');
  await retryLostRaces(async () => {
    const label = (await db().entities.label.get({ orgId: ctx.org.orgId, labelId }).go({ consistent: true })).data;
    if (!label) throw notFound('Label');
    await transact((e) => [
      guarded(
        e.label
          .delete({ orgId: ctx.org.orgId, labelId })
          .where((attr, op) => op.eq(attr.updatedAt, label.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      releaseName(e, ctx.org.orgId, 'label', label.name),
    ]);
  });
}
