// Sign-in: e-mail and password, then the second step when the account has two-factor on (an
// authenticator code or a recovery code against the challenge the first step answered).
import { useEffect, useState } from 'preact/hooks';
import { currentSession, messageOf, rememberSignedIn, run, type Session } from './api.js';
import { Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { SignInProvidersQuery } from './generated/graphql/graphql.js';

const signInProvidersQuery = graphql(`
  query SignInProviders {
    signInProviders {
      id
      name
      signInUrl
    }
  }
`);

const loginMutation = graphql(`
  mutation Login($input: LoginInput!) {
    login(input: $input) {
      twoFactorRequired
      challenge
    }
  }
`);

const completeTwoFactorSignInMutation = graphql(`
  mutation CompleteTwoFactorSignIn($input: TwoFactorSignInInput!) {
    completeTwoFactorSignIn(input: $input) {
      activeTeamId
    }
  }
`);

interface Props {
  onSignedIn: (session: Session) => void;
}

/** Where a provider's sign-in comes back to: the console, told that this browser is now signed in. */
export const providerReturn = '/console?signed-in=provider';

/**
 * The sign-in providers of the server (OIDC_PROVIDERS), as buttons to their sign-in: browser
 * navigations to /api/auth/oidc/… (the provider's redirect is not an API call).
 */
function Providers() {
  const [providers, setProviders] = useState<SignInProvidersQuery['signInProviders']>([]);
  useEffect(() => {
    void run(signInProvidersQuery).then(({ data }) => setProviders(data?.signInProviders ?? []));
  }, []);
  if (!providers.length) return null;
  return (
    <ul class="providers" aria-label="Other ways to sign in">
      {providers.map((p) => (
        <li key={p.id}>
          <a class="button secondary" href={`${p.signInUrl}?redirectTo=${encodeURIComponent(providerReturn)}`}>
            Sign in with {p.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

export function SignIn({ onSignedIn }: Props) {
  const [challenge, setChallenge] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function attempt(work: () => Promise<void>) {
    setBusy(true);
    setProblem(null);
    try {
      await work();
    } catch {
      setProblem(messageOf(null));
    } finally {
      setBusy(false);
    }
  }

  const signedIn = async () => {
    rememberSignedIn(true);
    const session = await currentSession();
    if (session) onSignedIn(session);
    else setProblem('Signed in, but the session did not hold: are cookies allowed for this site?');
  };

  const submitPassword = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void attempt(async () => {
      const { data, error } = await run(loginMutation, { input: { email: String(form.get('email')), password: String(form.get('password')) } });
      if (error) return setProblem(messageOf(error, { AUTHENTICATION_FAILED: 'The e-mail or the password is wrong.' }));
      if (data?.login.twoFactorRequired && data.login.challenge) return setChallenge(data.login.challenge);
      await signedIn();
    });
  };

  const submitCode = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    void attempt(async () => {
      const { error } = await run(completeTwoFactorSignInMutation, { input: { challenge: challenge!, code: String(form.get('code')).trim() } });
      if (error) return setProblem(messageOf(error));
      await signedIn();
    });
  };

  return (
    <main class="narrow">
      <h1>Sign in</h1>
      {challenge === null ? (
        <form onSubmit={submitPassword} aria-describedby={problem ? 'problem' : undefined}>
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required />
          </label>
          <label>
            Password
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
          <button type="submit" disabled={busy}>
            Sign in
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} aria-describedby={problem ? 'problem' : undefined}>
          <p>Two-factor sign-in is on for this account: enter the code your authenticator app shows, or one of your recovery codes.</p>
          <label>
            Code
            <input name="code" inputMode="numeric" autoComplete="one-time-code" required autoFocus />
          </label>
          <button type="submit" disabled={busy}>
            Continue
          </button>
        </form>
      )}
      <Problem id="problem" text={problem} />
      {challenge === null && <Providers />}
      {challenge === null && (
        <p>
          <a href="/console/forgot-password">Forgotten password?</a> · <a href="/console/sign-up">Create an account</a>
        </p>
      )}
    </main>
  );
}
