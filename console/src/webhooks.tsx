// The active team's webhook endpoints (owners and admins: webhooks.md): each with its events, on or
// off, deleted, and its delivery log (status, HTTP answer, time); a new one with its URL and the
// events it takes, picked from the entities' (generated: definitions.ts) or `*`, its signing secret
// shown once with a copy button.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, run } from './api.js';
import { studioEntities } from './definitions.js';
import { fieldErrorsOf, Problem, ShownOnce } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { WebhookDeliveriesQuery, WebhookEndpointsQuery } from './generated/graphql/graphql.js';

const webhookEndpointsQuery = graphql(`
  query WebhookEndpoints($limit: Int) {
    webhookEndpoints(limit: $limit) {
      items {
        id
        url
        description
        eventTypes
        active
      }
    }
  }
`);

const webhookDeliveriesQuery = graphql(`
  query WebhookDeliveries($id: ID!, $limit: Int) {
    webhookEndpoint(id: $id) {
      id
      deliveries(limit: $limit) {
        items {
          id
          eventType
          status
          statusCode
          error
          attempt
          createdAt
        }
      }
    }
  }
`);

const createWebhookEndpointMutation = graphql(`
  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      id
      url
      secret
    }
  }
`);

const updateWebhookEndpointMutation = graphql(`
  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      id
      active
    }
  }
`);

const deleteWebhookEndpointMutation = graphql(`
  mutation DeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id) {
      id
    }
  }
`);

type Endpoint = WebhookEndpointsQuery['webhookEndpoints']['items'][number];
type Delivery = WebhookDeliveriesQuery['webhookEndpoint']['deliveries']['items'][number];

/** Every entity's and child's events, `<slug>:*`, and `*`. */
const eventChoices = ['*', ...studioEntities.flatMap((e) => [e, ...e.children].map((c) => `${c.slug}:*`))];

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  useEffect(() => {
    void run(webhookDeliveriesQuery, { id: endpoint.id, limit: 20 }).then(({ data }) => setDeliveries(data?.webhookEndpoint.deliveries.items ?? []));
  }, [endpoint.id]);
  if (deliveries === null) return <p aria-busy="true">Loading…</p>;
  if (!deliveries.length) return <p class="hint">No delivery yet.</p>;
  return (
    <div class="table-scroll">
      <table>
        <caption class="visually-hidden">Deliveries to {endpoint.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            <th scope="col">Attempt</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td>{d.eventType}</td>
              <td>{d.status}</td>
              <td>{d.statusCode ?? d.error ?? '—'}</td>
              <td>{d.attempt}</td>
              <td>{new Date(d.createdAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Webhooks({ role }: { role: string | null }) {
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const managing = role === 'owner' || role === 'admin' ? null : 'Only owners and admins manage webhooks';
  const load = async () => {
    if (managing) return setEndpoints([]);
    const { data, error } = await run(webhookEndpointsQuery, { limit: 100 });
    setProblem(error ? messageOf(error) : null);
    setEndpoints(data?.webhookEndpoints.items ?? []);
  };
  useEffect(() => void load(), [role]);
  const create = async (event: Event) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const description = String(form.get('description') ?? '').trim();
    const { data, error } = await run(createWebhookEndpointMutation, { input: { url: String(form.get('url')), eventTypes: form.getAll('eventTypes').map(String), ...(description ? { description } : {}) } });
    // createWebhookEndpoint checks its input as POST /api/v1/webhooks did: the same message, the same
    // unprefixed paths in details.errors (`url`, `eventTypes`), read at the fields as they were.
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error) : null);
    const created = data?.createWebhookEndpoint;
    if (error || !created) return;
    formElement.reset();
    setSecret({ url: created.url, secret: created.secret });
    await load();
  };
  const toggle = async (endpoint: Endpoint) => {
    const { error } = await run(updateWebhookEndpointMutation, { id: endpoint.id, input: { active: !endpoint.active } });
    setProblem(error ? messageOf(error) : null);
    await load();
  };
  const remove = async (endpoint: Endpoint) => {
    if (!confirm(`Delete the endpoint ${endpoint.url} and its delivery log?`)) return;
    const { error } = await run(deleteWebhookEndpointMutation, { id: endpoint.id });
    setProblem(error ? messageOf(error) : null);
    await load();
  };
  return (
    <main class="wide">
      <h1>Webhooks</h1>
      <p>The team's changes are sent, signed, to each endpoint subscribed to their events.</p>
      {managing && <p class="hint">{managing}.</p>}
      {secret && (
        <ShownOnce key={secret.secret} heading={`Signing secret of ${secret.url}`} note="Deliveries carry a signature made with it." value={secret.secret} what="secret" testId="webhook-secret" onDone={() => setSecret(null)} />
      )}
      <section aria-labelledby="new-endpoint-heading">
        <h2 id="new-endpoint-heading">New endpoint</h2>
        <form onSubmit={(e) => void create(e)} noValidate>
          <fieldset disabled={managing !== null}>
            <legend class="visually-hidden">Endpoint</legend>
            <label>
              URL
              <input name="url" type="url" required aria-invalid={errors.url ? 'true' : undefined} aria-describedby={errors.url ? 'url-problem' : undefined} />
              {errors.url && (
                <span id="url-problem" class="field-problem">
                  {errors.url}
                </span>
              )}
            </label>
            <label>
              Description
              <input name="description" maxLength={500} />
            </label>
            <fieldset>
              <legend>Events</legend>
              {eventChoices.map((choice) => (
                <label key={choice} class="inline">
                  <input type="checkbox" name="eventTypes" value={choice} />
                  {choice === '*' ? 'every event (*)' : choice}
                </label>
              ))}
              {errors.eventTypes && <span class="field-problem">{errors.eventTypes}</span>}
            </fieldset>
            <button type="submit">Create the endpoint</button>
          </fieldset>
        </form>
      </section>
      <Problem text={problem} />
      <section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Endpoints</h2>
        {endpoints === null ? (
          <p aria-busy="true">Loading…</p>
        ) : endpoints.length ? (
          <ul class="endpoints">
            {endpoints.map((e) => (
              <li key={e.id}>
                <p>
                  <strong class="secret">{e.url}</strong> · {e.eventTypes.join(', ')} · {e.active ? 'on' : 'off'}
                  {e.description && ` · ${e.description}`}
                </p>
                <div class="actions">
                  <button type="button" class="secondary" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                    Deliveries
                  </button>
                  <button type="button" class="secondary" onClick={() => void toggle(e)}>
                    {e.active ? 'Turn off' : 'Turn on'}
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(e)}>
                    Delete
                  </button>
                </div>
                {open === e.id && <Deliveries endpoint={e} />}
              </li>
            ))}
          </ul>
        ) : (
          <p>{managing ? 'Not shown to your role.' : 'No endpoint yet.'}</p>
        )}
      </section>
    </main>
  );
}
