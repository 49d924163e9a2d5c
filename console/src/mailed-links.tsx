// The pages that mailed links open when APP_URL is not set (Config.mail.linkBase): a forgotten
// password asked for, the reset (a new password with the link's token), the e-mail verification
// (the token followed: the address is verified and a session starts).
import { useEffect, useState } from 'preact/hooks';
import { messageOf, rememberSignedIn, run } from './api.js';
import { Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';

const requestPasswordResetMutation = graphql(`
  mutation RequestPasswordReset($input: RequestPasswordResetInput!) {
    requestPasswordReset(input: $input)
  }
`);

const resetPasswordMutation = graphql(`
  mutation ResetPassword($input: ResetPasswordInput!) {
    resetPassword(input: $input)
  }
`);

const verifyEmailMutation = graphql(`
  mutation VerifyEmail($input: VerifyEmailInput!) {
    verifyEmail(input: $input) {
      activeTeamId
    }
  }
`);

/** The link's token (`?token=…`), or null. */
export const tokenOfLink = () => new URLSearchParams(location.search).get('token');

export function ForgotPassword() {
  const [sent, setSent] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget as HTMLFormElement).get('email'));
    const { error } = await run(requestPasswordResetMutation, { input: { email } });
    if (error) return setProblem(messageOf(error));
    setSent('If an account has this e-mail, a reset link is on its way');
  };
  return (
    <main class="narrow">
      <h1>Forgotten password</h1>
      {sent ? (
        <p role="status">{sent}.</p>
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required />
          </label>
          <button type="submit">Mail me a reset link</button>
        </form>
      )}
      <Problem text={problem} />
      <p>
        <a href="/console">Back to sign-in</a>
      </p>
    </main>
  );
}

export function ResetPassword() {
  const [done, setDone] = useState(false);
  const [problem, setProblem] = useState<string | null>(tokenOfLink() ? null : 'This link has no token: open the link of the e-mail as it is.');
  const submit = async (event: Event) => {
    event.preventDefault();
    const password = String(new FormData(event.currentTarget as HTMLFormElement).get('password'));
    const { error } = await run(resetPasswordMutation, { input: { token: tokenOfLink() ?? '', password } });
    if (error) return setProblem(messageOf(error));
    setProblem(null);
    setDone(true);
  };
  return (
    <main class="narrow">
      <h1>Choose a new password</h1>
      {done ? (
        <p role="status">
          Password changed. <a href="/console">Sign in</a> with the new password.
        </p>
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <label>
            New password
            <input name="password" type="password" autoComplete="new-password" minLength={8} required />
          </label>
          <button type="submit">Set the password</button>
        </form>
      )}
      <Problem text={problem} />
    </main>
  );
}

export function VerifyEmail({ onVerified }: { onVerified: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    void run(verifyEmailMutation, { input: { token: tokenOfLink() ?? '' } }).then(({ error }) => {
      if (error) return setProblem(messageOf(error));
      rememberSignedIn(true);
      history.replaceState(null, '', '/console');
      onVerified();
    });
  }, []);
  return (
    <main class="narrow">
      <h1>Verifying your e-mail address</h1>
      {problem ? <Problem text={problem} /> : <p aria-busy="true">One moment…</p>}
      {problem && (
        <p>
          <a href="/console">Go to sign-in</a>
        </p>
      )}
    </main>
  );
}
