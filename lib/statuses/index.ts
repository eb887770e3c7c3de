/** Public surface of the statuses domain for other domains (boards, tickets, agent policies). */
export { loadOrganizationStatuses, presentStatus, RECATEGORIZE_JOB, type Recategorizing, statusKeyFor } from './statuses.js';
export { statusResult } from './shapes.js';
export { listStatuses } from './statuses.js';
export { listStatusesOp } from './operations.js';
