// Form parts every screen shares: a labelled field that shows the server's word about it (a 400 or
// 422 answer's `details.errors`, by path) at the field itself, marked invalid for assistive technology;
// and a secret shown once with its copy button.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/**
 * An error envelope's word per field as path → message: a 400's `details.errors` (`[{path, message}]`,
 * the first message of each path) or a record write's 422 `details` (`{field: message}`).
 */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  const details = error && typeof error === 'object' && 'details' in error ? (error.details as Record<string, unknown> | undefined) : undefined;
  const out: Record<string, string> = {};
  if (!details || typeof details !== 'object') return out;
  if (!Array.isArray(details.errors)) {
    for (const [path, message] of Object.entries(details)) if (typeof message === 'string') out[path] = message;
    return out;
  }
  for (const item of details.errors as { path?: unknown; message?: unknown }[]) {
    if (typeof item.path === 'string' && typeof item.message === 'string') out[item.path] ??= item.message;
  }
  return out;
}

interface FieldProps {
  name: string;
  label: string;
  errors: Record<string, string>;
  type?: string;
  autoComplete?: string;
  minLength?: number;
  children?: ComponentChildren;
}

export function Field({ name, label, errors, type = 'text', autoComplete, minLength }: FieldProps) {
  const problem = errors[name];
  return (
    <label>
      {label}
      <input name={name} type={type} autoComplete={autoComplete} minLength={minLength} required aria-invalid={problem ? 'true' : undefined} aria-describedby={problem ? `${name}-problem` : undefined} />
      {problem && (
        <span id={`${name}-problem`} class="field-problem">
          {problem}
        </span>
      )}
    </label>
  );
}

/** The fields of a new account (sign-up, an invited person's sign-up), with the server's word at each. */
export function NewAccountFields({ errors }: { errors: Record<string, string> }) {
  return (
    <>
      <Field name="firstName" label="First name" autoComplete="given-name" errors={errors} />
      <Field name="lastName" label="Last name" autoComplete="family-name" errors={errors} />
      <Field name="email" label="E-mail" type="email" autoComplete="username" errors={errors} />
      <Field name="password" label="Password" type="password" autoComplete="new-password" errors={errors} />
    </>
  );
}

/** The body of a new account's form. */
export function newAccountOf(form: FormData): { firstName: string; lastName: string; email: string; password: string } {
  return { firstName: String(form.get('firstName')), lastName: String(form.get('lastName')), email: String(form.get('email')), password: String(form.get('password')) };
}

/** What the server refused, announced (`role="alert"`); nothing when there is nothing to say. */
export function Problem({ text, id }: { text: string | null; id?: string }) {
  return text ? (
    <p id={id} class="problem" role="alert">
      {text}
    </p>
  ) : null;
}

/** A secret the server shows once (a new API key, a webhook's signing secret), with a button that copies it. */
export function ShownOnce({ heading, note, value, what, testId, onDone }: { heading: string; note: string; value: string; what: string; testId: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return (
    <section class="shown-once" aria-labelledby="shown-once-heading">
      <h2 id="shown-once-heading">{heading}</h2>
      <p>Copy it now: it is shown this once. {note}</p>
      <p>
        <code class="secret" data-testid={testId}>
          {value}
        </code>
      </p>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy the {what}
        </button>
        {copied && <span role="status">Copied.</span>}
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
