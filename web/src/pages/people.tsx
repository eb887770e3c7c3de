import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, must } from '../api';
import { ErrorAlert } from '../alert';
import { can, useMe } from '../hooks';
import { ago } from '../time';

/** The organization's people with their permission groups, and (for those who manage people) invitations. */
export function PeoplePage() {
  const me = useMe();
  const manages = can(me.data?.permissions, 'users:manage');
  const users = useQuery({ queryKey: ['users'], queryFn: async () => must(await api.GET('/api/v1/users', { params: { query: { limit: 100 } } })) });
  const groups = useQuery({ queryKey: ['permission-groups'], queryFn: async () => must(await api.GET('/api/v1/permission-groups')), refetchInterval: false });
  const groupName = new Map((groups.data?.data ?? []).map((group) => [group.id, group.name]));
  const people = (users.data?.data ?? []).filter((user) => !user.isAgent);
  return (
    <section className="page">
      <h1>People</h1>
      <ErrorAlert error={users.error} />
      {manages ? <Invitations groups={groups.data?.data ?? []} /> : null}
      <h2>Members</h2>
      <ul className="rows" aria-label="Members">
        {people.map((user) => (
          <li key={user.id} className="row">
            <span className="what">
              {user.name}
              <span className="muted">
                {' '}
                {user.email} · {user.role.toLowerCase().replace('_', ' ')}
                {user.isActive ? '' : ' · deactivated'}
              </span>
              <span className="note">{user.permissionGroupIds.map((id) => groupName.get(id) ?? id).join(', ') || 'No group'}</span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Invitations({ groups }: { groups: { id: string; name: string; type: string }[] }) {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [groupId, setGroupId] = useState('');
  const [sent, setSent] = useState('');
  const pending = useQuery({ queryKey: ['invitations'], queryFn: async () => must(await api.GET('/api/v1/invitations')) });
  const internal = groups.filter((group) => group.type === 'INTERNAL');
  const invite = useMutation({
    mutationFn: async () => {
      const administrators = internal.find((group) => group.id === groupId)?.name === 'Administrators';
      return must(
        await api.POST('/api/v1/invitations', {
          body: { email, role: administrators ? 'ADMIN' : 'TEAM_MEMBER', ...(groupId ? { permissionGroupIds: [groupId] } : {}) },
        }),
      );
    },
    onSuccess: (invitation) => {
      setSent(invitation.email);
      setEmail('');
      void client.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const withdraw = useMutation({
    mutationFn: async (invitationId: string) => must(await api.DELETE('/api/v1/invitations/{invitationId}', { params: { path: { invitationId } } })),
    onSettled: () => void client.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSent('');
    invite.mutate();
  };
  const rows = pending.data?.data ?? [];
  return (
    <>
      <form className="panel" onSubmit={submit} aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a person</h2>
        <div className="filters">
          <label className="filter">
            Email
            <input type="email" required maxLength={320} value={email} onChange={(event) => setEmail(event.target.value)} />
          </label>
          <label className="filter">
            Group
            <select value={groupId} onChange={(event) => setGroupId(event.target.value)}>
              <option value="">Members (the default)</option>
              {internal
                .filter((group) => group.name !== 'Members')
                .map((group) => (
                  <option key={group.id} value={group.id}>
                    {group.name}
                  </option>
                ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={invite.isPending}>
            Invite
          </button>
        </div>
        {sent ? <p role="status">Invitation sent to {sent}. The link works once, for 7 days.</p> : null}
        <ErrorAlert error={invite.error} />
      </form>
      <h2>Invitations</h2>
      <ErrorAlert error={pending.error ?? withdraw.error} />
      {pending.isSuccess && rows.length === 0 ? <p className="muted">No invitation waits.</p> : null}
      {rows.length > 0 ? (
        <ul className="rows" aria-label="Invitations">
          {rows.map((invitation) => (
            <li key={invitation.id} className="row">
              <span className="what">
                {invitation.email}
                <span className="muted">
                  {' '}
                  invited by {invitation.invitedBy.name} {ago(invitation.createdAt)} · {invitation.permissionGroupIds.map((id) => groups.find((group) => group.id === id)?.name ?? id).join(', ')}
                </span>
              </span>
              <span className="actions">
                <button type="button" className="secondary" disabled={withdraw.isPending} onClick={() => withdraw.mutate(invitation.id)} aria-label={`Withdraw the invitation of ${invitation.email}`}>
                  Withdraw
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
