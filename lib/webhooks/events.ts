/**
 * The events an endpoint can subscribe to (docs/webhooks.md), each with when it fires. This list is
 * the catalogue (`GET /api/v1/webhook-endpoints/events`) and the vocabulary endpoint
 * subscriptions are validated against. `ping` is not subscribable: it is sent on request.
 */
export const EVENT_CATALOGUE = {
  'ticket.created': 'A ticket was created',
  'ticket.updated': 'A ticket was updated',
  'ticket.deleted': 'A ticket was deleted',
  'ticket.status_changed': "A ticket's status changed",
  'ticket.assigned': 'A ticket was assigned or reassigned (the wake-up signal for an agent that does not poll)',
  'ticket.claimed': 'An agent or a person took a lease on a ticket',
  'ticket.claim_released': 'A lease was handed back',
  'ticket.claim_expired': 'A lease ran out unreleased',
  'ticket.reported': 'An agent reported a run',
  'ticket.dependency_added': 'A ticket now waits for another (blockerId)',
  'ticket.dependency_removed': 'A ticket no longer waits for another (blockerId)',
  'ticket.unblocked': 'The last open ticket a ticket waited for was finished, deleted or removed (lastBlockerId)',
  'ticket.claim_directive': "A person told a lease's holder to stop, pause or resume (action, requestedById)",
  'ticket.quarantined': 'A ticket left the ready queue after its leases lapsed too many times in a row (lapses)',
  'budget.warning': "A board's or an agent's spend this month passed 80 % of its budget (scope, id, spentMicros, budgetMicros)",
  'comment.created': 'A comment was added',
  'pr.opened': 'A pull request appeared for the first time',
  'pr.status_changed': "A pull request's state, pipeline status or review status changed",
  'pr.merged': 'A pull request was merged',
  'pipeline.updated': 'A CI/CD run was ingested or changed status',
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;

export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as [EventType, ...EventType[]];
