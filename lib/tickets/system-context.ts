import type { Clock } from '../core/clock.js';
import type { DomainContext } from '../db/context.js';
import { newId } from '../core/ids.js';
import type { OrganizationItem } from '../db/entities/index.js';

/**
 * The context of work the service does on its own (the sweeper): actor `system`, no
 * permissions, no teams. `org` may be a stub carrying only `orgId` when the caller has not
 * read the organization (the sweeper works across organizations from one index).
 */
export function systemContext(clock: Clock, org: Pick<OrganizationItem, 'orgId'> & Partial<OrganizationItem>): DomainContext {
  return {
    org: org as OrganizationItem,
    clock,
    requestId: newId('evt').replace('evt_', 'sys_'),
    actor: {
      userId: 'system',
      name: 'system',
      email: '',
      role: 'TEAM_MEMBER',
      isAgent: false,
      isAdmin: false,
      customerId: null,
      permissions: new Set(),
      teamIds: new Set(),
      credential: { kind: 'SESSION', credentialId: 'system', lookupKey: 'system', allowedBoardIds: [], readOnly: false, denyDelete: false, clientLabel: null, scopes: null },
      agent: null,
    },
  };
}
