// The signed-in account: who and which team, the password (changed with the current one; the other
// sessions end), two-factor sign-in (two-factor.tsx), linked sign-in providers (unlinked), where it is signed in (each session with its device and when it was last seen; one
// or all the others ended), and sign-out.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { messageOf, rememberSignedIn, run, type Session } from './api.js';
import { Field, fieldErrorsOf, Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { MyIdentitiesQuery, MySessionsQuery } from './generated/graphql/graphql.js';
import { TwoFactor } from './two-factor.js';

const myIdentitiesQuery = graphql(`
  query MyIdentities {
    myIdentities {
      id
      provider
      email
    }
  }
`);

const unlinkIdentityMutation = graphql(`
  mutation UnlinkIdentity($id: ID!) {
    unlinkIdentity(id: $id)
  }
`);

const changePasswordMutation = graphql(`
  mutation ChangePassword($input: ChangePasswordInput!) {
    changePassword(input: $input) {
      endedSessions
    }
  }
`);

const mySessionsQuery = graphql(`
  query MySessions {
    mySessions {
      id
      current
      ipAddress
      userAgent
      device
      lastSeenAt
    }
  }
`);

const revokeSessionMutation = graphql(`
  mutation RevokeSession($id: ID!) {
    revokeSession(id: $id)
  }
`);

const revokeOtherSessionsMutation = graphql(`
  mutation RevokeOtherSessions {
    revokeOtherSessions
  }
`);

const logoutMutation = graphql(`
  mutation Logout {
    logout
  }
`);

type SignedInSession = MySessionsQuery['mySessions'][number];
type Identity = MyIdentitiesQuery['myIdentities'][number];

/** The provider accounts linked to this one, each unlinked here unless it is the last way to sign in (the server says 409). */
function Identities() {
  const [identities, setIdentities] = useState<Identity[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const load = async () => {
    const { data, error } = await run(myIdentitiesQuery);
    if (error) return setProblem(messageOf(error));
    setIdentities(data?.myIdentities ?? []);
  };
  useEffect(() => void load(), []);
  const unlink = async (identity: Identity) => {
    const { error } = await run(unlinkIdentityMutation, { id: identity.id });
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
    const { data, error } = await run(changePasswordMutation, { input: { currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) } });
    setErrors(fieldErrorsOf(error));
    // A wrong current password is INVALID_CREDENTIALS (accounts/passwords.ts); AUTHENTICATION_FAILED is a session that ended.
    setProblem(error ? messageOf(error, { INVALID_CREDENTIALS: 'The current password is wrong.' }) : null);
    if (error) return setDone(null);
    formElement.reset();
    const ended = data?.changePassword.endedSessions ?? 0;
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
    const { data, error } = await run(mySessionsQuery);
    if (error) return setProblem(messageOf(error));
    setSessions(data?.mySessions ?? []);
  };
  useEffect(() => void load(), []);
  const end = async (id: string) => {
    const { error } = await run(revokeSessionMutation, { id });
    if (error) return setProblem(messageOf(error));
    await load();
  };
  const endOthers = async () => {
    const { error } = await run(revokeOtherSessionsMutation);
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
    // Signed out here whatever the server answered (a session already ended is signed out), unless it was not reached.
    const { error } = await run(logoutMutation);
    if (error?.code === 'UNREACHABLE') return;
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
