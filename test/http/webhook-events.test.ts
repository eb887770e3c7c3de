import { beforeAll, describe, expect, it } from 'vitest';
import { api, createMember, createToken, signupOrg, type TestOrg, useInProcess } from '../support/api.js';

// In process, through the same route table and handlers (test/support/api.ts).
useInProcess();

/* The event catalogue (docs/webhooks.md, GET /events): open to any member of any plan. */
const SPEC_EVENTS = [
  'ticket.created', 'ticket.updated', 'ticket.deleted', 'ticket.status_changed', 'ticket.assigned', 'ticket.claimed',
  'ticket.claim_released', 'ticket.claim_expired', 'ticket.reported',
  // Beyond the spec (issue 29): dependencies between tickets.
  'ticket.dependency_added', 'ticket.dependency_removed', 'ticket.unblocked',
  // Beyond the spec (issue 43): steering the fleet.
  'ticket.claim_directive', 'ticket.quarantined', 'budget.warning',
  'comment.created', 'pr.opened', 'pr.status_changed', 'pr.merged', 'pipeline.updated',
];

describe('GET /api/v1/webhook-endpoints/events', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await signupOrg();
  });

  it('lists every event type of the spec, on the FREE plan too', async () => {
    const response = await org.call('GET', '/api/v1/webhook-endpoints/events');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(SPEC_EVENTS);
  });

  it('answers any member, a customer user and a read-only token alike', async () => {
    const member = await createMember(org);
    const customer = await org.call('POST', '/api/v1/customers', { body: { name: 'Catalogue customer' } });
    const customerUser = await createMember(org, { role: 'CUSTOMER', customerId: customer.body.id });
    const readOnly = await createToken(org, org.adminToken, { readOnly: true });
    for (const token of [member.token, customerUser.token, readOnly.token]) {
      const response = await api('GET', '/api/v1/webhook-endpoints/events', { token, org: org.slug });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(SPEC_EVENTS);
    }
  });

  it('needs a credential', async () => {
    const response = await api('GET', '/api/v1/webhook-endpoints/events', { org: org.slug });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
  });
});
