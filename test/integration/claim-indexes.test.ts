import { describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentDb } from '../../lib/db/client.js';
import { db } from '../../lib/db/service.js';
import { claimShards, type TicketItem } from '../../lib/db/entities/index.js';
import { lapsedClaims, lapsedClaimsOfOrganization } from '../../lib/tickets/record/claim-reads.js';
import { boardSetup, lapseClaim } from '../support/tickets.js';

/** Global indexes are eventually consistent (on AWS and, under load, in DynamoDB Local): read until `done`. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An organization with `count` tickets whose claims have lapsed (unswept). */
async function orgWithLapsedClaims(count: number) {
  const s = await boardSetup('Leases');
  const ticketIds: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const ticket = (await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets`, { body: { title: `Lease ${index}`, statusId: s.statuses.IN_PROGRESS.id } })).body.data;
    expect((await s.org.call('POST', `/api/v1/boards/${s.boardId}/tickets/${ticket.id}/claim`, { body: {} })).status).toBe(201);
    await lapseClaim(ticket.id);
    ticketIds.push(ticket.id);
  }
  return { orgId: s.org.orgId, ticketIds };
}

describe('claim indexes share no partition between organizations', () => {
  it("reads an organization's lapsed claims from a partition that holds only that organization", async () => {
    const first = await orgWithLapsedClaims(2);
    const second = await orgWithLapsedClaims(3);
    const now = new Date();

    const own = await eventually(() => lapsedClaimsOfOrganization(first.orgId, now), (found) => found.length === first.ticketIds.length);
    expect(own.map((ticket) => ticket.ticketId).sort()).toEqual([...first.ticketIds].sort());
    // The Query itself read nothing of the other organization: no item was read and then filtered away.
    const params = db().entities.ticket.query.byOrgClaimExpiry({ orgId: first.orgId }).lte({ claimExpiresAtKey: now.toISOString() }).params();
    const raw = await documentDb().send(new QueryCommand(params as never));
    expect(raw.ScannedCount).toBe(first.ticketIds.length);
    expect(raw.Count).toBe(first.ticketIds.length);
    const theirs = await eventually(() => lapsedClaimsOfOrganization(second.orgId, now), (found) => found.length === second.ticketIds.length);
    expect(theirs.map((ticket) => ticket.ticketId).sort()).toEqual([...second.ticketIds].sort());
  });

  it('spreads the sweeper index over its shards and reads them all', async () => {
    const world = await orgWithLapsedClaims(6);
    const found = await eventually(() => lapsedClaims(new Date()), (all) => world.ticketIds.every((ticketId) => all.some((ticket) => ticket.ticketId === ticketId)));
    const ids = new Set(found.map((ticket) => ticket.ticketId));
    for (const ticketId of world.ticketIds) expect(ids.has(ticketId)).toBe(true);
    const stored = (await Promise.all(world.ticketIds.map((ticketId) => db().entities.ticket.get({ ticketId }).go()))).map((result) => result.data as TicketItem);
    for (const ticket of stored) expect(claimShards()).toContain(ticket.claimShard);
    // Claims are spread by ticket id, not gathered in one partition.
    expect(new Set(stored.map((ticket) => ticket.claimShard)).size).toBeGreaterThan(1);
  });
});
