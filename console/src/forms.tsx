// Form parts every screen shares: a labelled field that shows the server's word about it (a 400 or
// 422 answer's `details.errors`, by path) at the field itself, marked invalid for assistive technology.
import type { ComponentChildren } from 'preact';

/** `details.errors` of an error envelope as path → message (the first message of each path). */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  const details = error && typeof error === 'object' && 'details' in error ? (error.details as { errors?: unknown } | undefined) : undefined;
  const out: Record<string, string> = {};
  if (!Array.isArray(details?.errors)) return out;
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
