import { conflict, forbidden, invalidField, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { guarded, transact } from '../db/transact.js';
import type { CustomFieldItem, CustomFieldType } from '../db/entities/index.js';
import { requirePermission, assertNameFree as assertFree, claimName, nameChanges, nameTaken, releaseName } from '../organizations/index.js';

/**
 * Definitions an organization may hold. Setting a ticket's values checks every definition it
 * names inside the write, so this also bounds that transaction (100 items at most).
 */
export const MAX_CUSTOM_FIELDS_PER_ORGANIZATION = 50;
export const MAX_OPTIONS_PER_FIELD = 100;

export function presentCustomField(field: CustomFieldItem) {
  return {
    id: field.fieldId,
    name: field.name,
    type: field.fieldType,
    description: field.description,
    options: field.options ?? [],
    isRequired: field.isRequired,
    order: field.order,
    createdAt: field.createdAt,
    updatedAt: field.updatedAt,
  };
}

const byDisplayOrder = (a: CustomFieldItem, b: CustomFieldItem): number =>
  a.order - b.order || a.name.localeCompare(b.name) || a.fieldId.localeCompare(b.fieldId);

/** The organization's custom field definitions in display order: one consistent Query. */
async function loadOrganizationCustomFields(orgId: string): Promise<CustomFieldItem[]> {
  const { data } = await db().entities.customField.query.byOrg({ orgId }).go({ pages: 'all', consistent: true });
  return data.sort(byDisplayOrder);
}

/** Definitions are organization-wide; customer users see values on their own tickets only. */
function requireInternalUser(ctx: DomainContext): void {
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot list the organization’s custom fields');
}

/** Names are unique per organization, case-insensitively (lib/organizations/unique-names.ts). */
const assertNameFree = (fields: CustomFieldItem[], name: string, exceptId?: string): void =>
  assertFree(fields, name, { idOf: (field) => field.fieldId, nameOf: (field) => field.name, exceptId, what: 'custom field' });

const changedConcurrently = () => new LostRace('The custom field changed concurrently; retry');


/** SELECT fields need at least one option, each once; other types take none. */
function checkOptions(type: CustomFieldType, options: string[] | undefined): string[] | undefined {
  if (type !== 'SELECT') {
    if (options && options.length > 0) throw invalidField('options', 'Only SELECT fields have options');
    return undefined;
  }
  if (!options || options.length === 0) throw invalidField('options', 'A SELECT field needs at least one option');
  const seen = new Set<string>();
  options.forEach((option, index) => {
    if (seen.has(option)) throw invalidField(`options.${index}`, 'Listed twice');
    seen.add(option);
  });
  return options;
}

/** GET /api/v1/custom-fields → {data: [definition]} in display order. */
export async function listCustomFields(ctx: DomainContext) {
  requireInternalUser(ctx);
  return (await loadOrganizationCustomFields(ctx.org.orgId)).map(presentCustomField);
}

export interface CreateCustomFieldInput {
  name: string;
  type: CustomFieldType;
  description: string;
  options?: string[];
  isRequired: boolean;
  order?: number;
}

/**
 * One consistent Query answers name uniqueness, the limit and the default order; one
 * transaction writes the definition with its name guard.
 */
export async function createCustomField(ctx: DomainContext, input: CreateCustomFieldInput) {
  requirePermission(ctx, 'custom-fields:manage');
  return retryLostRaces(async () => {
    const options = checkOptions(input.type, input.options);
    const fields = await loadOrganizationCustomFields(ctx.org.orgId);
    if (fields.length >= MAX_CUSTOM_FIELDS_PER_ORGANIZATION) {
      throw conflict(`An organization has at most ${MAX_CUSTOM_FIELDS_PER_ORGANIZATION} custom fields`);
    }
    assertNameFree(fields, input.name);
    const at = ctx.clock.now().toISOString();
    const field: CustomFieldItem = {
      orgId: ctx.org.orgId,
      fieldId: newId('cf'),
      name: input.name,
      fieldType: input.type,
      description: input.description,
      ...(options ? { options } : {}),
      isRequired: input.isRequired,
      order: input.order ?? Math.max(-1, ...fields.map((existing) => existing.order)) + 1,
      createdAt: at,
      updatedAt: at,
    };
    await transact((e) => [
      guarded(e.customField.create(field).commit(), changedConcurrently),
      claimName(e, field.orgId, 'customField', field.name, field.fieldId, () => nameTaken('custom field', field.name)),
    ]);
    return presentCustomField(field);
  });
}

export interface UpdateCustomFieldInput {
  name?: string;
  description?: string;
  options?: string[];
  isRequired?: boolean;
  order?: number;
}

/**
 * The type is fixed at creation (stored values were checked against it). Changing a SELECT
 * field's options leaves stored values as they are; the next PUT of values checks them anew.
 * The write is guarded by the read `updatedAt`, which setting ticket values also checks; a
 * rename moves the name guard in the same transaction.
 */
export async function updateCustomField(ctx: DomainContext, fieldId: string, input: UpdateCustomFieldInput) {
  requirePermission(ctx, 'custom-fields:manage');
  return retryLostRaces(async () => {
    const fields = await loadOrganizationCustomFields(ctx.org.orgId);
    const field = fields.find((candidate) => candidate.fieldId === fieldId);
    if (!field) throw notFound('Custom field');
    if (input.name !== undefined) assertNameFree(fields, input.name, fieldId);
    const options = input.options !== undefined ? checkOptions(field.fieldType, input.options) : field.options;
    const changes = {
      name: input.name ?? field.name,
      description: input.description ?? field.description,
      ...(options ? { options } : {}),
      isRequired: input.isRequired ?? field.isRequired,
      order: input.order ?? field.order,
      updatedAt: ctx.clock.now().toISOString(),
    };
    const renamed = nameChanges(field.name, input.name);
    await transact((e) => [
      guarded(
        e.customField
          .patch({ orgId: ctx.org.orgId, fieldId })
          .set(changes)
          .where((attr, op) => op.eq(attr.updatedAt, field.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      ...(renamed
        ? [
            releaseName(e, ctx.org.orgId, 'customField', field.name),
            claimName(e, ctx.org.orgId, 'customField', changes.name, fieldId, () => nameTaken('custom field', changes.name)),
          ]
        : []),
    ]);
    return presentCustomField({ ...field, ...changes });
  });
}

/**
 * Deletes the definition and frees its name in one transaction, guarded by the `updatedAt`
 * read. Tickets keep their value until their next PUT of values (lazy cleanup); ticket
 * payloads already leave out values of fields that no longer exist, and ids are never reused.
 */
export async function deleteCustomField(ctx: DomainContext, fieldId: string): Promise<void> {
  requirePermission(ctx, 'custom-fields:manage');
  await retryLostRaces(async () => {
    const field = (await db().entities.customField.get({ orgId: ctx.org.orgId, fieldId }).go({ consistent: true })).data;
    if (!field) throw notFound('Custom field');
    await transact((e) => [
      guarded(
        e.customField
          .delete({ orgId: ctx.org.orgId, fieldId })
          .where((attr, op) => op.eq(attr.updatedAt, field.updatedAt))
          .commit(),
        changedConcurrently,
      ),
      releaseName(e, ctx.org.orgId, 'customField', field.name),
    ]);
  });
}
