// Two-factor sign-in on the account: turned on with the password, a QR code (and the secret as text)
// for the authenticator app, and a first code; the recovery codes are shown once. Turned off with a
// code or a recovery code.
import { useState } from 'preact/hooks';
import { renderSVG } from 'uqr';
import { messageOf, run } from './api.js';
import { Field, fieldErrorsOf, Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';

const enrollTwoFactorMutation = graphql(`
  mutation EnrollTwoFactor($input: EnrollTwoFactorInput!) {
    enrollTwoFactor(input: $input) {
      secret
      otpauthUri
    }
  }
`);

const confirmTwoFactorMutation = graphql(`
  mutation ConfirmTwoFactor($input: ConfirmTwoFactorInput!) {
    confirmTwoFactor(input: $input) {
      recoveryCodes
    }
  }
`);

const disableTwoFactorMutation = graphql(`
  mutation DisableTwoFactor($input: TwoFactorCodeInput!) {
    disableTwoFactor(input: $input)
  }
`);

type Step = { at: 'off' } | { at: 'scan'; secret: string; otpauthUri: string } | { at: 'codes'; recoveryCodes: string[] } | { at: 'on' };

/** The otpauth:// URI as a QR code image (an SVG data: URL: nothing leaves the browser). */
const qrOf = (uri: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderSVG(uri))}`;

export function TwoFactor({ enabled, onChanged }: { enabled: boolean; onChanged: () => void }) {
  const [step, setStep] = useState<Step>({ at: enabled ? 'on' : 'off' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const refused = (error: unknown) => {
    setErrors(fieldErrorsOf(error));
    // A wrong password is INVALID_CREDENTIALS (accounts/passwords.ts assertCurrentPassword); AUTHENTICATION_FAILED is a session that ended.
    setProblem(messageOf(error, { INVALID_CREDENTIALS: 'The password is wrong.' }));
  };
  const accepted = (next: Step) => {
    setErrors({});
    setProblem(null);
    setStep(next);
  };
  const valueOf = (event: Event, name: string) => {
    event.preventDefault();
    return String(new FormData(event.currentTarget as HTMLFormElement).get(name)).trim();
  };

  const enroll = async (event: Event) => {
    const { data, error } = await run(enrollTwoFactorMutation, { input: { password: valueOf(event, 'password') } });
    if (error || !data) return refused(error);
    accepted({ at: 'scan', ...data.enrollTwoFactor });
  };
  const confirm = async (event: Event) => {
    const { data, error } = await run(confirmTwoFactorMutation, { input: { code: valueOf(event, 'code') } });
    if (error || !data) return refused(error);
    accepted({ at: 'codes', recoveryCodes: data.confirmTwoFactor.recoveryCodes });
  };
  const disable = async (event: Event) => {
    const { error } = await run(disableTwoFactorMutation, { input: { code: valueOf(event, 'code') } });
    if (error) return refused(error);
    accepted({ at: 'off' });
    onChanged();
  };

  return (
    <section aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      {step.at === 'off' && (
        <form onSubmit={(event) => void enroll(event)} noValidate>
          <p>Off: the password alone signs in. Turn it on with an authenticator app (your password first).</p>
          <Field name="password" label="Password" type="password" autoComplete="current-password" errors={errors} />
          <button type="submit">Turn on two-factor sign-in</button>
        </form>
      )}
      {step.at === 'scan' && (
        <form onSubmit={(event) => void confirm(event)} noValidate>
          <p>Scan this code with your authenticator app, or type the key below into it; then enter the code it shows.</p>
          <img class="qr" src={qrOf(step.otpauthUri)} alt="QR code of the authenticator key" width={192} height={192} />
          <p>
            Key: <code class="secret">{step.secret}</code>
          </p>
          <Field name="code" label="Code from the app" autoComplete="one-time-code" errors={errors} />
          <button type="submit">Turn on</button>
        </form>
      )}
      {step.at === 'codes' && (
        <div>
          <p role="status">Two-factor sign-in is on. Your other sessions ended.</p>
          <p>Keep these recovery codes somewhere safe: each signs in once without the app. They are shown only now.</p>
          <ul class="recovery-codes" aria-label="Recovery codes">
            {step.recoveryCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <button
            type="button"
            onClick={() => {
              setStep({ at: 'on' });
              onChanged();
            }}
          >
            I have kept them
          </button>
        </div>
      )}
      {step.at === 'on' && (
        <form onSubmit={(event) => void disable(event)} noValidate>
          <p>On: signing in asks for a code from your authenticator app.</p>
          <Field name="code" label="Code or recovery code" autoComplete="one-time-code" errors={errors} />
          <button type="submit" class="secondary">
            Turn off two-factor sign-in
          </button>
        </form>
      )}
      <Problem text={problem} />
    </section>
  );
}
