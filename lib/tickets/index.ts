/** Public face of the tickets domain for other domains: they reach it only through this file. */
export { liveTicketOf, loadTicketOnBoard, loadTicketOnBoardWith, loadTickets } from './access.js';
export { claimTicket, heartbeatClaim, releaseClaim } from './claims/claims.js';
export { type SweepScope, liveClaimsOf, sweepLapsedClaims } from './claims/expiry.js';
export { REPORT_OUTCOMES, reportRun } from './claims/reports.js';
export { loadOrgConfig } from './config.js';
export { locateTicket, resolveTicketRef } from './display-ids.js';
export { baseTicketData } from './events.js';
export { propagateReadiness } from './dependencies/propagate.js';
export { READINESS_EVENT, isReady } from './dependencies/readiness.js';
export { flagTicketsOfAssignees, retypeTickets } from './lists/bulk.js';
export { listIssues } from './lists/list.js';
export { recategorizeTickets } from './lists/recategorize.js';
export { maySeeSecretComments, presentTicket } from './present.js';
export { joinRelease, leaveRelease } from './release-membership.js';
export { ticketResult, type Ticket } from './shapes.js';
export { createBoardTicket, getTicket, patchTicket } from './tickets.js';
export { changeTicketStatus } from './workflow.js';
export { saveTicket } from './write.js';
