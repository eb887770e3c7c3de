import type { OrganizationItem, PermissionGroupItem } from '../db/entities/index.js';

/**
 * The organization item's compact copy of its permission groups: what authentication
 * needs (permissions) and what assigning users to groups needs (type, system key).
 * Written in the same transaction as every permission-group change.
 */
export interface GroupDirectoryEntry {
  type: 'INTERNAL' | 'CUSTOMER';
  permissions: string[];
  systemKey?: string;
}
export type GroupDirectory = Record<string, GroupDirectoryEntry>;

export const groupDirectoryOf = (org: OrganizationItem): GroupDirectory => (org.groupDirectory ?? {}) as GroupDirectory;

export const directoryEntryOf = (group: PermissionGroupItem): GroupDirectoryEntry => ({
  type: group.type,
  permissions: group.permissions,
  ...(group.systemKey ? { systemKey: group.systemKey } : {}),
});

/** Union of the permissions of the given groups. */
export function permissionsOfGroups(directory: GroupDirectory, groupIds: Iterable<string>): Set<string> {
  const result = new Set<string>();
  for (const groupId of groupIds) for (const permission of directory[groupId]?.permissions ?? []) result.add(permission);
  return result;
}

/** Id of a system group (ADMINISTRATORS, MEMBERS, AGENTS, CUSTOMERS) of the organization. */
export function systemGroupId(directory: GroupDirectory, systemKey: string): string | undefined {
  return Object.entries(directory).find(([, entry]) => entry.systemKey === systemKey)?.[0];
}
