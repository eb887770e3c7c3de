import { conflict, forbidden, notFound } from '../core/errors.js';
import type { DomainContext } from '../db/context.js';
import { LostRace, retryLostRaces } from '../db/races.js';
import { newId } from '../core/ids.js';
import { db } from '../db/service.js';
import { isConditionFailure } from '../db/transact.js';
import type { CustomerItem } from '../db/entities/index.js';
import { requirePermission } from '../organizations/index.js';
import { pageOf } from '../core/pages.js';
import { removeCustomerFromBoards } from '../boards/index.js';

export function presentCustomer(customer: Omit<CustomerItem, 'searchText'>) {
  return {
    id: customer.customerId,
    name: customer.name,
    email: customer.email ?? null,
    phone: customer.phone ?? null,
    isArchived: customer.isArchived,
    createdAt: customer.createdAt,
  };
}

/** Whether the customer matches a search term in its name or its e-mail. */
function matches(customer: CustomerItem, needle: string): boolean {
  return customer.name.toLowerCase().includes(needle) || (customer.email ?? '').toLowerCase().includes(needle);
}

/** A customer user sees only their own customer record; any other id is reported as missing. */
function assertMayRead(ctx: DomainContext, customerId: string): void {
  if (ctx.actor.role === 'CUSTOMER' && ctx.actor.customerId !== customerId) throw notFound('Customer');
}

/** Writes need members:edit and are for internal users only, whatever a customer group grants. */
function requireCustomerManager(ctx: DomainContext): void {
  if (ctx.actor.role === 'CUSTOMER') throw forbidden('Customer users cannot manage customers');
  requirePermission(ctx, 'members:edit');
}

async function loadCustomer(orgId: string, customerId: string): Promise<CustomerItem> {
  const customer = (await db().entities.customer.get({ orgId, customerId }).go()).data;
  if (!customer) throw notFound('Customer');
  return customer;
}

export interface ListCustomersQuery {
  page: number;
  limit: number;
  search?: string;
  includeArchived?: boolean;
}

export async function listCustomers(ctx: DomainContext, query: ListCustomersQuery) {
  const candidates = await readableCustomers(ctx);
  const needle = query.search?.trim().toLowerCase();
  const customers = candidates
    .filter((customer) => query.includeArchived || !customer.isArchived)
    .filter((customer) => !needle || matches(customer, needle))
    .sort((a, b) => a.name.localeCompare(b.name) || a.customerId.localeCompare(b.customerId));
  return pageOf(customers.map(presentCustomer), query.page, query.limit);
}

/** Internal users: every customer of the organization (one Query). Customer users: their own. */
async function readableCustomers(ctx: DomainContext): Promise<CustomerItem[]> {
  if (ctx.actor.role === 'CUSTOMER') {
    if (!ctx.actor.customerId) return [];
    const own = (await db().entities.customer.get({ orgId: ctx.org.orgId, customerId: ctx.actor.customerId }).go()).data;
    return own ? [own] : [];
  }
  const { data } = await db().entities.customer.query.byOrg({ orgId: ctx.org.orgId }).go({ pages: 'all' });
  return data;
}

export async function getCustomer(ctx: DomainContext, customerId: string) {
  assertMayRead(ctx, customerId);
  return presentCustomer(await loadCustomer(ctx.org.orgId, customerId));
}

export interface CreateCustomerInput {
  name: string;
  email?: string | null;
  phone?: string | null;
}

export async function createCustomer(ctx: DomainContext, input: CreateCustomerInput) {
  requireCustomerManager(ctx);
  const at = ctx.clock.now().toISOString();
  const email = input.email ?? undefined;
  const customer: Omit<CustomerItem, 'searchText'> = {
    orgId: ctx.org.orgId,
    customerId: newId('cst'),
    name: input.name,
    email,
    phone: input.phone ?? undefined,
    isArchived: false,
    createdAt: at,
    updatedAt: at,
  };
  await db().entities.customer.create(customer).go();
  return presentCustomer(customer);
}

/**
 * Changes name, e-mail or phone; null clears e-mail or phone. The search text the entity derives
 * depends on both name and e-mail, so the current record is read, both are sent, and the write is
 * guarded by its `updatedAt` (a concurrent change in between is a lost race: read again).
 */
export async function updateCustomer(ctx: DomainContext, customerId: string, input: Partial<CreateCustomerInput>) {
  requireCustomerManager(ctx);
  return retryLostRaces(async () => {
    const current = await loadCustomer(ctx.org.orgId, customerId);
    const at = ctx.clock.now().toISOString();
    const next: CustomerItem = {
      ...current,
      name: input.name ?? current.name,
      email: input.email === undefined ? current.email : input.email ?? undefined,
      phone: input.phone === undefined ? current.phone : input.phone ?? undefined,
      updatedAt: at,
    };
    const cleared = [
      ...(input.email === null ? (['email'] as const) : []),
      ...(input.phone === null ? (['phone'] as const) : []),
    ];
    let update = db()
      .entities.customer.patch({ orgId: ctx.org.orgId, customerId })
      .set({
        name: next.name,
        ...(next.email !== undefined ? { email: next.email } : {}),
        ...(next.phone !== undefined ? { phone: next.phone } : {}),
        updatedAt: at,
      });
    if (cleared.length > 0) update = update.remove(cleared);
    try {
      await update.where((attr, op) => op.eq(attr.updatedAt, current.updatedAt)).go();
    } catch (error) {
      if (isConditionFailure(error)) throw new LostRace('The customer changed concurrently; retry');
      throw error;
    }
    return presentCustomer(next);
  });
}

/** Archives the customer (the API reference: active customer → archived); archiving again changes nothing. */
export async function archiveCustomer(ctx: DomainContext, customerId: string) {
  requireCustomerManager(ctx);
  try {
    const result = await db()
      .entities.customer.patch({ orgId: ctx.org.orgId, customerId })
      .set({ isArchived: true, updatedAt: ctx.clock.now().toISOString() })
      .go({ response: 'all_new' });
    return presentCustomer(result.data as CustomerItem);
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Customer');
    throw error;
  }
}

/**
 * Permanent delete. Refused while customer users are linked to the record (they would be
 * left without a customer); afterwards the customer is taken off every board.
 */
export async function deleteCustomer(ctx: DomainContext, customerId: string): Promise<void> {
  requireCustomerManager(ctx);
  const orgId = ctx.org.orgId;
  const { data: linked } = await db()
    .entities.user.query.byOrg({ orgId })
    .where((attr, op) => `${op.eq(attr.customerId, customerId)} AND ${op.eq(attr.role, 'CUSTOMER')}`)
    .go({ pages: 'all' });
  if (linked.length > 0) {
    throw conflict('Customer users are still linked to this customer', { userIds: linked.map((user) => user.userId).sort() });
  }
  try {
    await db().entities.customer.remove({ orgId, customerId }).go();
  } catch (error) {
    if (isConditionFailure(error)) throw notFound('Customer');
    throw error;
  }
  await removeCustomerFromBoards(orgId, customerId, ctx.clock.now().toISOString());
}
