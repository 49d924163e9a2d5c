// Scheduled actions, for developers (global role developer or superadmin: scheduled-actions.md): the
// queue's actions, latest scheduled first, filtered by status and action type (the registered ones),
// paged; a failed one retried, a pending one cancelled; an action's payload, result and error shown.
import { useEffect, useState } from 'preact/hooks';
import { messageOf, run, type Session } from './api.js';
import { holdsGlobalRole } from './team.js';
import { Problem } from './forms.js';
import { graphql } from './generated/graphql/index.js';
import type { ScheduledActionsQuery } from './generated/graphql/graphql.js';

const scheduledActionsQuery = graphql(`
  query ScheduledActions($status: String, $actionType: String, $page: Int, $limit: Int) {
    scheduledActions(status: $status, actionType: $actionType, page: $page, limit: $limit) {
      actions {
        id
        actionType
        status
        scheduledAt
        attempts
        maxRetries
        recurringInterval
        errorMessage
        payload
        result
      }
      pagination {
        total
        totalPages
      }
      meta {
        registeredActionTypes
      }
    }
  }
`);

const retryScheduledActionMutation = graphql(`
  mutation RetryScheduledAction($id: ID!) {
    retryScheduledAction(id: $id) {
      id
      status
    }
  }
`);

const cancelScheduledActionMutation = graphql(`
  mutation CancelScheduledAction($id: ID!) {
    cancelScheduledAction(id: $id) {
      id
      status
    }
  }
`);

type Answer = ScheduledActionsQuery['scheduledActions'];
type Action = Answer['actions'][number];
/** An action's status, as the queue has them (GraphQL's `status` argument is a String the server checks). */
type Status = 'pending' | 'running' | 'completed' | 'failed';

const statuses: Status[] = ['pending', 'running', 'completed', 'failed'];

export function ScheduledActions({ session }: { session: Session }) {
  const forDevelopers = holdsGlobalRole(session, 'developer') ? null : 'Scheduled actions are for developers (global role developer or superadmin)';
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [status, setStatus] = useState<Status | ''>('');
  const [type, setType] = useState('');
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (forDevelopers) return;
    const variables = { page, limit: 20, ...(status ? { status } : {}), ...(type ? { actionType: type } : {}) };
    void run(scheduledActionsQuery, variables).then(({ data, error }) => {
      setProblem(error ? messageOf(error) : null);
      setAnswer(data?.scheduledActions ?? null);
    });
  }, [status, type, page, version]);
  const retry = async (action: Action) => {
    const { error } = await run(retryScheduledActionMutation, { id: action.id });
    setProblem(error ? messageOf(error) : null);
    setVersion((v) => v + 1);
  };
  const cancel = async (action: Action) => {
    const { error } = await run(cancelScheduledActionMutation, { id: action.id });
    setProblem(error ? messageOf(error) : null);
    setVersion((v) => v + 1);
  };
  if (forDevelopers) {
    return (
      <main class="wide">
        <h1>Scheduled actions</h1>
        <p class="hint">{forDevelopers}.</p>
      </main>
    );
  }
  return (
    <main class="wide">
      <h1>Scheduled actions</h1>
      <form class="toolbar" onSubmit={(e) => e.preventDefault()}>
        <label class="inline">
          Status
          <select value={status} onChange={(e) => (setStatus((e.currentTarget as HTMLSelectElement).value as Status | ''), setPage(1))}>
            <option value="">any</option>
            {statuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label class="inline">
          Action type
          <select value={type} onChange={(e) => (setType((e.currentTarget as HTMLSelectElement).value), setPage(1))}>
            <option value="">any</option>
            {(answer?.meta.registeredActionTypes ?? []).map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </form>
      <Problem text={problem} />
      {answer === null ? (
        <p aria-busy="true">Loading…</p>
      ) : answer.actions.length ? (
        <ul class="endpoints">
          {answer.actions.map((a) => (
            <li key={a.id}>
              <p>
                <strong>{a.actionType}</strong> · {a.status} · due {new Date(a.scheduledAt).toLocaleString()} · attempt {a.attempts} of {a.maxRetries}
                {a.recurringInterval && ` · every ${a.recurringInterval}`}
              </p>
              {a.errorMessage && <p class="problem">{a.errorMessage}</p>}
              <details>
                <summary>Payload{a.result ? ' and result' : ''}</summary>
                <pre class="code">{JSON.stringify({ payload: a.payload, ...(a.result ? { result: a.result } : {}) }, null, 2)}</pre>
              </details>
              <div class="actions">
                {a.status === 'failed' && (
                  <button type="button" class="secondary" onClick={() => void retry(a)}>
                    Retry
                  </button>
                )}
                {a.status === 'pending' && (
                  <button type="button" class="secondary" onClick={() => void cancel(a)}>
                    Cancel
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p>No action{status || type ? ' matches' : ' yet'}.</p>
      )}
      <nav class="actions" aria-label="Pages">
        <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <button type="button" class="secondary" disabled={!answer || page >= answer.pagination.totalPages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
        {answer && <span class="hint">{answer.pagination.total} in all</span>}
      </nav>
    </main>
  );
}
