// The caller's API keys: each with its scopes, status and last use, its usage on request, revoked here; a new one made with
// a name and scopes picked from what the modules declare (generated: definitions.ts), those the
// caller's global role may not grant shown disabled with the reason; the key itself shown once, with
// a button that copies it.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, run, type Session } from './api.js';
import { holdsGlobalRole } from './team.js';
import { declaredScopes } from './definitions.js';
import { fieldErrorsOf, Problem, ShownOnce } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { ApiKeysQuery } from './generated/graphql/graphql.js';

const apiKeysQuery = graphql(`
  query ApiKeys {
    apiKeys {
      id
      name
      keyPrefix
      scopes
      status
      lastUsedAt
    }
  }
`);

const apiKeyUsageQuery = graphql(`
  query ApiKeyUsage($id: ID!) {
    apiKey(id: $id) {
      id
      totalRequests
      requestsLast24h
      lastUsedAt
    }
  }
`);

const createApiKeyMutation = graphql(`
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      id
      name
      key
    }
  }
`);

const revokeApiKeyMutation = graphql(`
  mutation RevokeApiKey($id: ID!) {
    revokeApiKey(id: $id) {
      id
      status
    }
  }
`);

type Key = ApiKeysQuery['apiKeys'][number];

const actions = ['read', 'write', 'delete'] as const;

/** A key's use, asked when the person asks: requests in all and in the last 24 hours, and the last one. */
function Usage({ id }: { id: string }) {
  const [usage, setUsage] = useState<string | null>(null);
  const show = async () => {
    const { data, error } = await run(apiKeyUsageQuery, { id });
    const key = data?.apiKey;
    setUsage(error || !key ? messageOf(error) : `${key.totalRequests} request${key.totalRequests === 1 ? '' : 's'} in all, ${key.requestsLast24h} in the last 24 hours${key.lastUsedAt ? `, last ${new Date(key.lastUsedAt).toLocaleString()}` : ''}`);
  };
  return usage ? (
    <span role="status">{usage}</span>
  ) : (
    <button type="button" class="secondary" onClick={() => void show()}>
      Usage
    </button>
  );
}

export function ApiKeys({ session }: { session: Session }) {
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [made, setMade] = useState<{ name: string; key: string } | null>(null);
  const load = async () => {
    const { data, error } = await run(apiKeysQuery);
    setProblem(error ? messageOf(error) : null);
    setKeys(data?.apiKeys ?? []);
  };
  useEffect(() => void load(), []);
  const refusal = (minimumRole: string) => (holdsGlobalRole(session, minimumRole) ? null : `Needs the ${minimumRole} role`);

  const create = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const scopes = form.getAll('scopes').map(String);
    const answer = await run(createApiKeyMutation, { input: { name: String(form.get('name')), scopes } });
    const error = answer.error;
    const created = answer.data?.createApiKey;
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error) : null);
    if (error || !created) return;
    formElement.reset();
    setMade({ name: created.name, key: created.key });
    await load();
  };
  const revoke = async (key: Key) => {
    if (!confirm(`Revoke the key “${key.name}”? Requests with it are refused from now on.`)) return;
    const { error } = await run(revokeApiKeyMutation, { id: key.id });
    setProblem(error ? messageOf(error) : null);
    await load();
  };

  return (
    <main class="wide">
      <h1>API keys</h1>
      <p>A key acts as you, with the scopes it names, in the team a request names (<code>X-Team-Id</code>) or your active team.</p>
      {made && (
        <ShownOnce key={made.key} heading={`The key “${made.name}”`} note="Only its first characters are kept." value={made.key} what="key" testId="new-key" onDone={() => setMade(null)} />
      )}
      <section aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">New key</h2>
        <form onSubmit={(e) => void create(e)} noValidate>
          <label>
            Name
            <input name="name" required maxLength={100} aria-invalid={errors.name ? 'true' : undefined} aria-describedby={errors.name ? 'name-problem' : undefined} />
            {errors.name && (
              <span id="name-problem" class="field-problem">
                {errors.name}
              </span>
            )}
          </label>
          <fieldset>
            <legend>Scopes</legend>
            <table class="scopes">
              <thead>
                <tr>
                  <th scope="col">Resource</th>
                  {actions.map((a) => (
                    <th key={a} scope="col">
                      {a}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {declaredScopes.map((r) => {
                  const refused = refusal(r.minimumRole);
                  return (
                    <tr key={r.name}>
                      <th scope="row" title={r.description}>
                        {r.name}
                        {refused && <span class="hint"> ({refused})</span>}
                      </th>
                      {actions.map((a) => (
                        <td key={a}>
                          <input type="checkbox" name="scopes" value={`${r.name}:${a}`} aria-label={`${r.name}:${a}`} disabled={refused !== null} title={refused ?? r.description} />
                        </td>
                      ))}
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {errors.scopes && <span class="field-problem">{errors.scopes}</span>}
          </fieldset>
          <button type="submit">Create the key</button>
        </form>
      </section>
      <Problem text={problem} />
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {keys === null ? (
          <p aria-busy="true">Loading…</p>
        ) : keys.length ? (
          <ul class="sessions">
            {keys.map((k) => (
              <li key={k.id}>
                <span>
                  <strong>{k.name}</strong> <code>{k.keyPrefix}…</code> · {k.scopes.join(', ')} · {k.status}
                  {k.lastUsedAt ? ` · last used ${new Date(k.lastUsedAt).toLocaleString()}` : ' · never used'}
                </span>
                <Usage id={k.id} />
                <button type="button" class="secondary" disabled={k.status !== 'active'} title={k.status !== 'active' ? `This key is ${k.status}` : undefined} onClick={() => void revoke(k)}>
                  Revoke {k.name}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p>No key yet.</p>
        )}
      </section>
    </main>
  );
}
