/** Public face of the users domain for other domains: they reach it only through this file. */
export { presentUser } from './present.js';
export { createdTokenResult, organizationBrief, tokenResult, userResult } from './shapes.js';
export { groupChecks, groupIdsFor, requireMayAssignGroups } from './users.js';
