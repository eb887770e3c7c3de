/**
 * The console's pages for people who are not signed in (docs/console.md, "People join and
 * recover"): joining from an invitation, asking for a password reset, setting a new password
 * from its link, and the platform operator's outbox. They call the API's open routes (and the
 * outbox with the operator's token, typed in and held in this page's memory only), never with a
 * session; each ends at the sign-in page.
 */
import { type FormEvent, type ReactNode, useState } from 'react';
import createClient from 'openapi-fetch';
import type { paths } from '../api/schema';
import { ApiError, must } from '../api';
import { ErrorAlert } from '../alert';
import { href } from '../router';
import { goToSignIn, organizationHeaders } from '../session';
import { ago } from '../time';

/** The API without a session: the organization's header only (an answer of 401 is shown, never renewed). */
const openApi = createClient<paths>({
  baseUrl: location.origin,
  fetch: (request: Request) => {
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(organizationHeaders())) headers.set(name, value);
    return fetch(new Request(request, { headers, credentials: 'omit' }));
  },
});

/** The link's `token`, read once and taken out of the address (it stays out of the history and of any Referer). */
const linkToken: string = (() => {
  const url = new URL(location.href);
  const token = url.searchParams.get('token') ?? '';
  if (token) {
    url.searchParams.delete('token');
    history.replaceState(null, '', `${url.pathname}${url.search}`);
  }
  return token;
})();

function Narrow({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="narrow">
      <h1>{title}</h1>
      {children}
    </main>
  );
}

const SignInButton = ({ email, label = 'Sign in', kind = 'primary' }: { email?: string; label?: string; kind?: 'primary' | 'secondary' }) => (
  <button type="button" className={kind} onClick={() => void goToSignIn(href('/app'), email)}>
    {label}
  </button>
);

export function PublicPage({ page }: { page: string }) {
  if (page === 'join') return <JoinPage />;
  if (page === 'reset') return <ResetPage />;
  if (page === 'forgot') return <ForgotPage />;
  return <OutboxPage />;
}

function useSubmit<T>(send: () => Promise<T>) {
  const [state, setState] = useState<{ busy: boolean; error: Error | null; done: T | null }>({ busy: false, error: null, done: null });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setState({ busy: true, error: null, done: null });
    send().then(
      (done) => setState({ busy: false, error: null, done }),
      (error: Error) => setState({ busy: false, error, done: null }),
    );
  };
  return { ...state, submit };
}

function JoinPage() {
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const join = useSubmit(async () => must(await openApi.POST('/api/v1/invitations/accept', { body: { token: linkToken, name, password } })));
  if (!linkToken) {
    return (
      <Narrow title="Join">
        <p>This page opens from the link in an invitation. Ask the person who invited you to send it again.</p>
      </Narrow>
    );
  }
  if (join.done) {
    return (
      <Narrow title={`Welcome to ${join.done.organization.name}`}>
        <p>
          You joined as {join.done.user.email}. Sign in with the password you chose to open the console.
        </p>
        <SignInButton email={join.done.user.email} />
      </Narrow>
    );
  }
  return (
    <Narrow title="Join your team">
      <p className="muted">Choose the name others see and a password. The invitation works once.</p>
      <form onSubmit={join.submit}>
        <label htmlFor="join-name">Name</label>
        <input id="join-name" required maxLength={100} autoComplete="name" value={name} onChange={(event) => setName(event.target.value)} />
        <label htmlFor="join-password">Password</label>
        <input id="join-password" type="password" required minLength={8} maxLength={256} autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
        <p className="muted">At least 8 characters.</p>
        <button type="submit" className="primary" disabled={join.busy}>
          Join
        </button>
        <ErrorAlert error={join.error} />
      </form>
    </Narrow>
  );
}

function ForgotPage() {
  const [email, setEmail] = useState('');
  const request = useSubmit(async () => {
    must(await openApi.POST('/api/v1/auth/password-reset', { body: { email } }));
    return email;
  });
  if (request.done) {
    return (
      <Narrow title="Check your e-mail">
        <p role="status">If {request.done} belongs to an account here, a link to set a new password is on its way. It works once, for 60 minutes.</p>
        <SignInButton label="Back to sign in" />
      </Narrow>
    );
  }
  return (
    <Narrow title="Forgot your password?">
      <p className="muted">We will e-mail you a link to set a new one.</p>
      <form onSubmit={request.submit}>
        <label htmlFor="forgot-email">Email</label>
        <input id="forgot-email" type="email" required maxLength={320} autoComplete="username" value={email} onChange={(event) => setEmail(event.target.value)} />
        <div className="actions">
          <button type="submit" className="primary" disabled={request.busy}>
            Send reset link
          </button>
          <SignInButton label="Back to sign in" kind="secondary" />
        </div>
        <ErrorAlert error={request.error} />
      </form>
    </Narrow>
  );
}

function ResetPage() {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const reset = useSubmit(async () => {
    if (password !== repeated) throw new ApiError(400, 'VALIDATION_ERROR', 'The two passwords differ.');
    must(await openApi.POST('/api/v1/auth/password-reset/confirm', { body: { token: linkToken, password } }));
    return true;
  });
  if (!linkToken) {
    return (
      <Narrow title="Set a new password">
        <p>This page opens from the link in a password reset message.</p>
        <SignInButton label="Back to sign in" />
      </Narrow>
    );
  }
  if (reset.done) {
    return (
      <Narrow title="Your password is set">
        <p role="status">Every session of yours was signed out, and every application you had connected must connect again.</p>
        <SignInButton />
      </Narrow>
    );
  }
  return (
    <Narrow title="Set a new password">
      <form onSubmit={reset.submit}>
        <label htmlFor="reset-password">New password</label>
        <input id="reset-password" type="password" required minLength={8} maxLength={256} autoComplete="new-password" value={password} onChange={(event) => setPassword(event.target.value)} />
        <label htmlFor="reset-repeat">Repeat the new password</label>
        <input id="reset-repeat" type="password" required minLength={8} maxLength={256} autoComplete="new-password" value={repeated} onChange={(event) => setRepeated(event.target.value)} />
        <p className="muted">At least 8 characters. Setting it signs you out everywhere.</p>
        <button type="submit" className="primary" disabled={reset.busy}>
          Set password
        </button>
        <ErrorAlert error={reset.error} />
      </form>
    </Narrow>
  );
}

/** The organization's outbox, for the platform operator: mail the service kept while no mail service is configured. */
function OutboxPage() {
  const [token, setToken] = useState('');
  const slug = new URLSearchParams(location.search).get('org') ?? document.querySelector<HTMLMetaElement>('meta[name="wm-organization"]')?.content ?? '';
  const outbox = useSubmit(async () =>
    must(
      await openApi.GET('/api/v1/platform/organizations/{slug}/outbox', {
        params: { path: { slug }, query: { limit: 100 } },
        headers: { authorization: `Bearer ${token}` },
      }),
    ),
  );
  return (
    <main id="main">
      <h1>Outbox</h1>
      <p className="muted">
        Invitations and password resets wait here while no mail service is configured (always under <code>npm start</code>). The platform operator's token opens it; it is
        kept in this page only.
      </p>
      <form onSubmit={outbox.submit} className="filters">
        <label className="filter" htmlFor="outbox-token">
          Platform operator token
          <input id="outbox-token" type="password" required autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} />
        </label>
        <button type="submit" className="primary" disabled={outbox.busy}>
          Show outbox
        </button>
      </form>
      <ErrorAlert error={outbox.error} />
      {outbox.done ? (
        outbox.done.data.length === 0 ? (
          <p className="muted">No mail in the last 7 days.</p>
        ) : (
          <ul className="rows" aria-label="Mail">
            {outbox.done.data.map((mail) => (
              <li key={mail.id} className="row">
                <span className="what">
                  <strong>{mail.subject}</strong>
                  <span className="muted">
                    {' '}
                    to {mail.to} · {ago(mail.sentAt)}
                  </span>
                  {/^https?:\/\//.test(mail.link) ? (
                    <a className="note" href={mail.link}>
                      Open the link for {mail.to}
                    </a>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        )
      ) : null}
    </main>
  );
}
