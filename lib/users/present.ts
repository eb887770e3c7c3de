import type { UserItem } from '../db/entities/index.js';

/** The user record as the API shows it; never the password hash. */
export function presentUser(user: UserItem) {
  return {
    id: user.userId,
    name: user.name,
    email: user.email,
    role: user.role,
    isActive: user.isActive,
    isAgent: user.isAgent,
    customerId: user.customerId ?? null,
    permissionGroupIds: [...(user.permissionGroupIds ?? [])].sort(),
    teamIds: [...(user.teamIds ?? [])].sort(),
    lastSeenAt: user.lastSeenAt ?? null,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}
