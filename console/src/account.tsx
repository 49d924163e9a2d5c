// The signed-in account: who and which team, the password (changed with the current one; the other
// sessions end), two-factor sign-in (two-factor.tsx), linked sign-in providers (unlinked), where it is signed in (each session with its device and when it was last seen; one
// or all the others ended), and sign-out.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf, platform, rememberSignedIn, type paths, type Session } from './api.js';
import { Field, fieldErrorsOf, Problem } from './forms.js';
import { TwoFactor } from './two-factor.js';

type SignedInSession = NonNullable<paths['/api/auth/sessions']['get']['responses'][200]['content']['application/json']['data']>[number];
type Identity = NonNullable<paths['/api/auth/identities']['get']['responses'][200]['content']['application/json']['data']>[number];

/** The provider accounts linked to this one, each unlinked here unless it is the last way to sign in (the server says 409). */
function Identities() {
  const [identities, setIdentities] = useState<Identity[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = async () => {
    const { data, error } = await platform.rest.GET('/api/auth/identities');
    if (error) return setProblem(messageOf(error));
    setIdentities(data?.data ?? []);
  };
  useEffect(() => void load(), []);
  const unlink = async (identity: Identity) => {
    const { error } = await platform.rest.DELETE('/api/auth/identities/{id}', { params: { path: { id: identity.id } } });
    setProblem(error ? messageOf(error, { CONFLICT: `${identity.provider} is your only way to sign in: set a password (forgotten password) before unlinking it.` }) : null);
    await load();
  };
  return (
    <section aria-labelledby="identities-heading">
      <h2 id="identities-heading">Linked sign-in providers</h2>
      {identities === null ? (
        <p aria-busy="true">Loading…</p>
      ) : identities.length ? (
        <ul class="sessions">
          {identities.map((identity) => (
            <li key={identity.id}>
              <span>
                {identity.provider} · {identity.email}
              </span>
              <button type="button" class="secondary" onClick={() => void unlink(identity)}>
                Unlink {identity.provider}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p>None: this account signs in with its password.</p>
      )}
      <Problem text={problem} />
    </section>
  );
}

function Password() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const { data, error } = await platform.rest.POST('/api/auth/password', { body: { currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) } });
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error, { AUTHENTICATION_FAILED: 'The current password is wrong.' }) : null);
    if (error) return setDone(null);
    formElement.reset();
    const ended = data?.data?.endedSessions ?? 0;
    setDone(`Password changed${ended ? `; ${ended} other session${ended === 1 ? '' : 's'} ended` : ''}.`);
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Field name="currentPassword" label="Current password" type="password" autoComplete="current-password" errors={errors} />
        <Field name="newPassword" label="New password" type="password" autoComplete="new-password" errors={errors} />
        <button type="submit">Change the password</button>
      </form>
      {done && <p role="status">{done}</p>}
      <Problem text={problem} />
    </section>
  );
}

function Sessions() {
  const [sessions, setSessions] = useState<SignedInSession[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = async () => {
    const { data, error } = await platform.rest.GET('/api/auth/sessions');
    if (error) return setProblem(messageOf(error));
    setSessions(data?.data ?? []);
  };
  useEffect(() => void load(), []);
  const end = async (id: string) => {
    const { error } = await platform.rest.DELETE('/api/auth/sessions/{id}', { params: { path: { id } } });
    if (error) return setProblem(messageOf(error));
    await load();
  };
  const endOthers = async () => {
    const { error } = await platform.rest.POST('/api/auth/sessions/revoke-others');
    if (error) return setProblem(messageOf(error));
    await load();
  };
  const others = (sessions ?? []).filter((s) => !s.current);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      {sessions === null ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <ul class="sessions">
          {sessions.map((s) => (
            <li key={s.id}>
              <span>
                {s.device ?? s.userAgent ?? 'Unknown device'}
                {s.ipAddress && ` · ${s.ipAddress}`} · last seen {new Date(s.lastSeenAt).toLocaleString()}
                {s.current && <strong> (this browser)</strong>}
              </span>
              {!s.current && (
                <button type="button" class="secondary" onClick={() => void end(s.id)}>
                  End
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={() => void endOthers()} disabled={!others.length} title={others.length ? undefined : 'No other session'}>
        Sign out everywhere else
      </button>
      <Problem text={problem} />
    </section>
  );
}

export function Account({ session, onSignedOut, onChanged, children }: { session: Session; onSignedOut: () => void; onChanged: () => void; children?: ComponentChildren }) {
  const signOut = async () => {
    await platform.rest.POST('/api/auth/logout');
    rememberSignedIn(false);
    onSignedOut();
  };
  const name = [session.user.firstName, session.user.lastName].filter(Boolean).join(' ');
  return (
    <main class="narrow">
      <h1>Console</h1>
      <p>
        Signed in as <strong>{session.user.email}</strong>
        {name && ` (${name})`}.
      </p>
      <p>Active team: {session.activeTeamId ?? 'none'}</p>
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
      {children}
      <Password />
      <TwoFactor enabled={session.twoFactorEnabled} onChanged={onChanged} />
      <Sessions />
      <Identities />
    </main>
  );
}
