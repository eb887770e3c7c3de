import { beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg } from '../support/api.js';
import { createBoard, createCustomer, createLabel, createOrg, createTicket, createTicketType } from '../support/factories.js';
import { useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/**
 * Concurrent writes that do not conflict all succeed (the race policy retries a lost race from
 * its read for about two seconds, with full jitter), and every change is kept.
 */
let org: TestOrg;
let board: { id: string };

beforeAll(async () => {
  org = await createOrg({ plan: 'PRO' });
  board = await createBoard(org);
});

describe('concurrent writes to one ticket', () => {
  it('keeps every field of 20 concurrent PATCHes of different fields', async () => {
    const ticket = await createTicket(org, board.id, { title: 'Contended' });
    const [label, customer, type] = [await createLabel(org), await createCustomer(org), await createTicketType(org)];
    const changes: Record<string, unknown>[] = [
      { title: 'Contended, renamed' },
      { description: 'Written while nineteen others wrote' },
      { priority: 'critical' },
      { dueDate: '2027-02-01T00:00:00.000Z' },
      { startDate: '2027-01-01T00:00:00.000Z' },
      { storyPoints: 8 },
      { externalReference: 'EXT-20' },
      { impactLevel: 'high' },
      { resolution: 'Resolved under contention' },
      { resolutionType: 'fixed' },
      { estimatedHours: 12 },
      { timeSpent: 3 },
      { labelIds: [label.id] },
      { customerId: customer.id },
      { typeId: type.id },
      { assigneeId: org.adminId },
    ];
    // Four more writers repeat a field with the same value: a write that changes nothing new still succeeds.
    changes.push({ priority: 'critical' }, { storyPoints: 8 }, { externalReference: 'EXT-20' }, { impactLevel: 'high' });
    expect(changes).toHaveLength(20);
    const answers = await Promise.all(changes.map((body) => org.call('PATCH', `/api/v1/boards/${board.id}/tickets/${ticket.id}`, { body })));
    for (const [index, answer] of answers.entries()) expect(answer.status, `${JSON.stringify(changes[index])}: ${JSON.stringify(answer.body)}`).toBe(200);
    const final = (await org.call('GET', `/api/v1/boards/${board.id}/tickets/${ticket.id}`)).body.data;
    for (const body of changes) {
      for (const [field, value] of Object.entries(body)) {
        if (field === 'labelIds') expect(final.labels.map((entry: { id: string }) => entry.id), field).toEqual(value);
        else if (field === 'customerId') expect(final.customer?.id ?? final.customerId, field).toBe(value);
        else if (field === 'typeId') expect(final.type?.id ?? final.typeId, field).toBe(value);
        else if (field === 'assigneeId') expect(final.assignee?.id ?? final.assigneeId, field).toBe(value);
        else expect(final[field], field).toEqual(value);
      }
    }
  });

  it('stores all of 50 concurrent comments, and counts them all', async () => {
    const ticket = await createTicket(org, board.id, { title: 'Much discussed' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => org.call('POST', `/api/v1/boards/${board.id}/tickets/${ticket.id}/comments`, { body: { content: `Comment ${index}` } })),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const listed = await org.call('GET', `/api/v1/boards/${board.id}/tickets/${ticket.id}/comments?limit=100`);
    expect(listed.body.total ?? listed.body.data.length).toBe(50);
    const final = (await org.call('GET', `/api/v1/boards/${board.id}/tickets/${ticket.id}`)).body.data;
    expect(final.commentCount).toBe(50);
  });

  it('moves one ticket through 12 concurrent status changes without a conflict', async () => {
    const ticket = await createTicket(org, board.id, { title: 'Moved about' });
    const statuses = ((await org.call('GET', '/api/v1/statuses')).body.data as { id: string; category: string }[]).filter((status) => status.category === 'ACTIVE');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) => org.call('PATCH', `/api/v1/boards/${board.id}/tickets/${ticket.id}/status`, { body: { statusId: statuses[index % statuses.length]!.id } })),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});
