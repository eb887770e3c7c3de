import { useQuery } from '@tanstack/react-query';
import { api, must } from './api';

/** The signed-in person, with their organization and permissions. */
export function useMe() {
  return useQuery({ queryKey: ['me'], queryFn: async () => must(await api.GET('/api/v1/users/me')), refetchInterval: false, staleTime: 60_000 });
}

/** Suggested moves waiting for a person. */
export function usePendingSuggestions() {
  return useQuery({ queryKey: ['suggestions', 'pending'], queryFn: async () => must(await api.GET('/api/v1/suggestions', { params: { query: { limit: 100 } } })) });
}

/** Agent time waiting for approval: only an approver (time-tracking:approve) sees the organization's. */
export function usePendingTime(enabled: boolean) {
  return useQuery({
    queryKey: ['time', 'pending'],
    enabled,
    queryFn: async () => must(await api.GET('/api/v1/time-tracking/entries', { params: { query: { state: 'PENDING', limit: 100 } } })),
  });
}

/** Whether the person holds a permission (an administrator's list is `['*']`: every one). */
export const can = (permissions: readonly string[] | undefined, permission: string): boolean => !!permissions && (permissions.includes('*') || permissions.includes(permission));
