// The page an invitation's e-mail opens (/console/invitations/<token>). Signed in: accept or decline
// it (it must be addressed to the signed-in account). Signed out: create the invited account (it
// joins the team at once), or sign in first with an account of that address.
import { useState } from 'preact/hooks';
import { currentSession, messageOf, rememberSignedIn, run, type Session } from './api.js';
import { fieldErrorsOf, newAccountOf, NewAccountFields, Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import { SignIn } from './sign-in.js';

const acceptTeamInvitationMutation = graphql(`
  mutation AcceptTeamInvitation($token: String!) {
    acceptTeamInvitation(token: $token) {
      teamId
    }
  }
`);

const declineTeamInvitationMutation = graphql(`
  mutation DeclineTeamInvitation($token: String!) {
    declineTeamInvitation(token: $token) {
      status
    }
  }
`);

const signupWithInviteMutation = graphql(`
  mutation SignupWithInvite($input: SignupWithInviteInput!) {
    signupWithInvite(input: $input) {
      teamId
    }
  }
`);


interface Props {
  token: string;
  session: Session | null;
  onSignedIn: (session: Session) => void;
}

function Answer({ token }: { token: string }) {
  const [outcome, setOutcome] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const answer = async (verb: 'accept' | 'decline') => {
    const { error } = verb === 'accept' ? await run(acceptTeamInvitationMutation, { token }) : await run(declineTeamInvitationMutation, { token });
    if (error) return setProblem(messageOf(error, { INVITATION_NOT_FOUND: 'This invitation is not addressed to this account, or it was answered, cancelled or has expired.' }));
    setOutcome(verb === 'accept' ? 'You joined the team.' : 'You declined the invitation.');
  };
  return (
    <main class="narrow">
      <h1>Invitation to a team</h1>
      {outcome ? (
        <p role="status">
          {outcome} <a href="/console">Go to the console</a>
        </p>
      ) : (
        <p class="actions">
          <button type="button" onClick={() => void answer('accept')}>
            Accept
          </button>
          <button type="button" class="secondary" onClick={() => void answer('decline')}>
            Decline
          </button>
        </p>
      )}
      <Problem text={problem} />
    </main>
  );
}

export function Invitation({ token, session, onSignedIn }: Props) {
  const [signingIn, setSigningIn] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  if (session) return <Answer token={token} />;
  if (signingIn) return <SignIn onSignedIn={onSignedIn} />;

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const { error } = await run(signupWithInviteMutation, { input: { inviteToken: token, ...newAccountOf(form) } });
    if (error) {
      setErrors(fieldErrorsOf(error));
      return setProblem(messageOf(error, { EMAIL_EXISTS: 'An account already has this e-mail: sign in with it instead.' }));
    }
    rememberSignedIn(true);
    history.replaceState(null, '', '/console');
    const signedIn = await currentSession();
    if (signedIn) onSignedIn(signedIn);
  };
  return (
    <main class="narrow">
      <h1>Invitation to a team</h1>
      <p>Create your account with the address the invitation was sent to: you join the team at once.</p>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <NewAccountFields errors={errors} />
        <button type="submit">Create the account and join</button>
      </form>
      <Problem text={problem} />
      <p>
        Already have an account with this address?{' '}
        <button type="button" class="link" onClick={() => setSigningIn(true)}>
          Sign in first
        </button>
      </p>
    </main>
  );
}
