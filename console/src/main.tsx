// The console: served at /console by the server that answers its API (docs/console.md). Signed out,
// it shows the sign-in; signed in, the data studio, the API keys and the account (shell.tsx).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentSession, rememberSignedIn, type Session } from './api.js';
import { Invitation } from './invitation.js';
import { ForgotPassword, ResetPassword, VerifyEmail } from './mailed-links.js';
import { route } from './navigation.js';
import { Shell } from './shell.js';
import { SignIn } from './sign-in.js';
import { SignUp } from './sign-up.js';
import './style.css';

// Back from a provider's sign-in (sign-in.tsx providerReturn): this browser holds a session now.
if (new URLSearchParams(location.search).get('signed-in') === 'provider') {
  rememberSignedIn(true);
  history.replaceState(null, '', location.pathname);
}

function Console() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [verifying, setVerifying] = useState(route() === '/verify-email');
  const load = () => currentSession().then(setSession, () => setSession(null));
  useEffect(() => {
    if (!verifying) void load();
  }, [verifying]);
  if (route() === '/forgot-password') return <ForgotPassword />;
  if (route() === '/reset-password') return <ResetPassword />;
  if (verifying) return <VerifyEmail onVerified={() => setVerifying(false)} />;
  if (session === undefined) return <p aria-busy="true">Loading…</p>;
  const invited = /^\/invitations\/([^/]+)$/.exec(route());
  if (invited) return <Invitation token={decodeURIComponent(invited[1]!)} session={session} onSignedIn={setSession} />;
  if (session === null) return route() === '/sign-up' ? <SignUp onSignedIn={setSession} /> : <SignIn onSignedIn={setSession} />;
  return <Shell session={session} onSignedOut={() => setSession(null)} onChanged={() => void load()} />;
}

render(<Console />, document.getElementById('console')!);
