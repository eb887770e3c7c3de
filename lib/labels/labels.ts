import { conflict, forbidden, notFound } from '../core/errors.js';
import type { DomainContext } from '../core/context.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { LabelItem } from '../db/entities/index.js';
import { requirePermission } from '../organizations/permissions.js';

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

const comparableName = (name: string): string => name.normalize('NFC').toLowerCase();

/** Names are unique per organization, case-insensitively. */
function assertNameFree(labels: LabelItem[], name: string, exceptLabelId?: string): void {
  const wanted = comparableName(name);
  if (labels.some((label) => label.labelId !== exceptLabelId && comparableName(label.name) === wanted)) {
    throw conflict(`A label named "${name}" already exists`, { field: 'name' });
  }
}

/** GET /api/v1/labels → {data: [label]} sorted by name. */
export async function listLabels(ctx: DomainContext) {
  requireInternalUser(ctx);
  return { data: (await loadOrganizationLabels(ctx.org.orgId)).map(presentLabel) };
}

export interface CreateLabelInput {
  name: string;
  color: string;
  description: string;
}

/** One consistent Query answers name uniqueness and the organization's limit; one conditional put writes. */
export async function createLabel(ctx: DomainContext, input: CreateLabelInput) {
  requirePermission(ctx, 'tickets:edit');
  const labels = await loadOrganizationLabels(ctx.org.orgId);
  if (labels.length >= MAX_LABELS_PER_ORGANIZATION) throw conflict(`An organization has at most ${MAX_LABELS_PER_ORGANIZATION} labels`);
  assertNameFree(labels, input.name);
  const at = ctx.clock.now().toISOString();
  const label: LabelItem = { orgId: ctx.org.orgId, labelId: newId('lbl'), ...input, createdAt: at, updatedAt: at };
  await db().entities.label.create(label).go();
  return presentLabel(label);
}

export interface UpdateLabelInput {
  name?: string;
  color?: string;
  description?: string;
}

/** The write is guarded by the read `updatedAt` (optimistic locking), like ticket types. */
export async function updateLabel(ctx: DomainContext, labelId: string, input: UpdateLabelInput) {
  requirePermission(ctx, 'tickets:edit');
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
  try {
    await db()
      .entities.label.patch({ orgId: ctx.org.orgId, labelId })
      .set(changes)
      .where((attr, op) => op.eq(attr.updatedAt, label.updatedAt))
      .go();
  } catch (error) {
    if (isConditionFailure(error)) throw conflict('The label changed concurrently; retry');
    throw error;
  }
  return presentLabel({ ...label, ...changes });
}

/**
 * Deletes the definition with one conditional delete. Tickets keep the id until their next
 * write (lazy cleanup): every ticket payload and the label filter already ignore ids that
 * no longer name a label, and ids are never reused.
 */
export async function deleteLabel(ctx: DomainContext, labelId: string): Promise<void> {
  requirePermission(ctx, 'tickets:edit');
  try {
    await db()
      .entities.label.delete({ orgId: ctx.org.orgId, labelId })
      .where((attr, op) => op.exists(attr.labelId))
      .go();
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Label');
    throw error;
  }
}
