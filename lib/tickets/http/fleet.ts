import type { Routes } from '../../http/routes.js';
import { withTicketRefs } from '../../http/ticket-refs.js';
import { claimsRoutes } from './claims.js';
import { dependencyRoutes } from './dependencies.js';

/**
 * Routes of the `fleet` group: the loop of agents working one backlog. Claims (docs/claims.md) and,
 * beyond the spec, claim-next, handoffs and dependencies between tickets. A group of its own so
 * that neither it nor the `tickets` group carries the other's code into its cold start. Every
 * route takes a display id ("PLAT-12") wherever it takes a ticket id.
 */
export const fleetRoutes: Routes = withTicketRefs({
  ...claimsRoutes,
  ...dependencyRoutes,
});
