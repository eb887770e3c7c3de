/** Public face of the organizations domain (permissions, plans, agent policies, counters, unique names) for other domains: they reach it only through this file. */
export { type AgentPolicies, agentPoliciesOf } from './agent-policies.js';
export { counterDown, counterUp } from './counters.js';
export { DEFAULT_STATUSES, DEFAULT_TICKET_TYPE } from './defaults.js';
export { directoryEntryOf, groupDirectoryOf, permissionsOfGroups, systemGroupId } from './group-directory.js';
export { type Permission, SYSTEM_GROUPS, hasPermission, requireAdmin, requireHeldPermissions, requirePermission } from './permissions.js';
export { planIncludes, requireFeature } from './plans.js';
export { assertNameFree, claimName, comparableName, nameChanges, nameTaken, releaseName } from './unique-names.js';
export { dispatchOf, organizationDispatchPaused } from './dispatch.js';
