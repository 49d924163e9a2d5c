// Sign-up: an account with a team of its own. Where the server asks for the e-mail address to be
// verified first (REQUIRE_EMAIL_VERIFICATION), it says where the link went, offers to send it again,
// and tells how an operator finds it when no mail server is set up yet (the CLI's outbox).
import { useState } from 'preact/hooks';
import { currentSession, messageOf, rememberSignedIn, run, type Session } from './api.js';
import { fieldErrorsOf, newAccountOf, NewAccountFields, Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';

const signupMutation = graphql(`
  mutation Signup($input: SignupInput!) {
    signup(input: $input) {
      emailVerificationRequired
    }
  }
`);

const resendVerificationEmailMutation = graphql(`
  mutation ResendVerificationEmail($input: ResendVerificationInput!) {
    resendVerificationEmail(input: $input)
  }
`);

export function SignUp({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [waitingFor, setWaitingFor] = useState<string | null>(null);
  const [resent, setResent] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const body = newAccountOf(form);
    const { data, error } = await run(signupMutation, { input: body });
    if (error) {
      setErrors(fieldErrorsOf(error));
      return setProblem(messageOf(error, { EMAIL_EXISTS: 'An account already has this e-mail: sign in, or ask for a new password.' }));
    }
    setErrors({});
    setProblem(null);
    if (data?.signup.emailVerificationRequired) return setWaitingFor(body.email);
    rememberSignedIn(true);
    const session = await currentSession();
    if (session) onSignedIn(session);
  };

  const resend = async () => {
    // The server answers the same whether or not the address awaits verification; only an unreached one is not "sent again".
    const { error } = await run(resendVerificationEmailMutation, { input: { email: waitingFor! } });
    if (error?.code !== 'UNREACHABLE') setResent(true);
  };

  if (waitingFor) {
    return (
      <main class="narrow">
        <h1>Check your e-mail</h1>
        <p role="status">
          Your account is made. To start using it, follow the link we sent to <strong>{waitingFor}</strong>.
        </p>
        <p>
          No e-mail? If this server has no mail server set up yet, its operator can read the link with <code>npm run -s cli -- mail outbox --to {waitingFor}</code>.
        </p>
        <button type="button" onClick={() => void resend()} disabled={resent}>
          {resent ? 'Sent again' : 'Send the link again'}
        </button>
      </main>
    );
  }
  return (
    <main class="narrow">
      <h1>Create an account</h1>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <NewAccountFields errors={errors} />
        <button type="submit">Create the account</button>
      </form>
      <Problem text={problem} />
      <p>
        Already have an account? <a href="/console">Sign in</a>
      </p>
    </main>
  );
}
