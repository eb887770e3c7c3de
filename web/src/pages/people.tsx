import { useQuery } from '@tanstack/react-query';
import { api, must } from '../api';
import { ErrorAlert } from '../alert';

export function PeoplePage() {
  const users = useQuery({ queryKey: ['users'], queryFn: async () => must(await api.GET('/api/v1/users', { params: { query: { limit: 100 } } })) });
  const people = (users.data?.data ?? []).filter((user) => !user.isAgent);
  return (
    <section className="page">
      <h1>People</h1>
      <ErrorAlert error={users.error} />
      <ul className="rows">
        {people.map((user) => (
          <li key={user.id} className="row">
            <span className="what">
              {user.name}
              <span className="muted">
                {' '}
                {user.email} · {user.role.toLowerCase()}
                {user.isActive ? '' : ' · deactivated'}
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
