// One record of an entity (or a new one): a form generated from its fields (field-input.tsx), saved
// with what changed, the server's per-field refusals shown at each field; deletion; the app's custom
// operations as buttons (`Pay an order`); its children, added and removed under it; and its history,
// each version with the fields it changed, its values beside the version before, and a restore.
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.js';
import type { StudioChild, StudioEntity } from './definitions.js';
import { FieldInput, shown, titleOf } from './field-input.js';
import { fieldErrorsOf, Problem } from './forms.js';
import { navigate } from './navigation.js';
import { addChild, createRecord, deleteChild, deleteRecord, readRecord, recordVersions, restoreVersion, runAction, updateRecord, type Values, type Version } from './records.js';

/** The body of a write: every writable field changed from `before` (a new record: every field given). */
function changesOf(d: StudioEntity | StudioChild, values: Values, before: Values | null): Values {
  const out: Values = {};
  for (const f of d.fields) {
    if (f.virtual || !(f.name in values)) continue;
    let value = values[f.name];
    if (f.type === 'json' && typeof value === 'string') {
      try {
        value = value.trim() ? JSON.parse(value) : null;
      } catch {
        // Sent as written: the server says what is wrong with it, at the field.
      }
    }
    if (before && JSON.stringify(before[f.name]) === JSON.stringify(value)) continue;
    if (!before && (value === '' || value === null)) continue;
    out[f.name] = value;
  }
  return out;
}

function Children({ d, id, child, records, readOnly, onChanged }: { d: StudioEntity; id: string; child: StudioChild; records: Values[]; readOnly: string | null; onChanged: () => void }) {
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (event: Event) => {
    event.preventDefault();
    const { error } = await addChild(d.slug, id, child.slug, changesOf(child, values, null));
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error) : null);
    if (error) return;
    setValues({});
    onChanged();
  };
  const remove = async (childId: string) => {
    const { error } = await deleteChild(d.slug, id, child.slug, childId);
    setProblem(error ? messageOf(error) : null);
    onChanged();
  };
  const headingId = `child-${child.slug}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{child.name}s</h2>
      <ul class="children">
        {records.map((r) => (
          <li key={String(r.id)}>
            <span>{child.fields.map((f) => shown(f, r[f.name])).join(' · ')}</span>
            <button type="button" class="secondary" disabled={readOnly !== null} title={readOnly ?? undefined} onClick={() => void remove(String(r.id))}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={(e) => void add(e)} noValidate>
        {child.fields
          .filter((f) => !f.virtual)
          .map((f) => (
            <FieldInput key={f.name} field={f} value={values[f.name]} problem={errors[f.name]} disabled={readOnly !== null} onChange={(v) => setValues({ ...values, [f.name]: v })} />
          ))}
        <button type="submit" disabled={readOnly !== null} title={readOnly ?? undefined}>
          Add a {child.name.toLowerCase()}
        </button>
      </form>
      <Problem text={problem} />
    </section>
  );
}

function History({ d, id, version, readOnly, onRestored }: { d: StudioEntity; id: string; version: number; readOnly: string | null; onRestored: () => void }) {
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    void recordVersions(d.slug, id).then(({ data, error }) => {
      setProblem(error ? messageOf(error) : null);
      setVersions(data?.data ?? []);
    });
  }, [d.slug, id, version]);
  const restore = async (number: number) => {
    const { error } = await restoreVersion(d.slug, id, number);
    setProblem(error ? messageOf(error) : null);
    if (!error) onRestored();
  };
  const labelOf = (name: string) => d.fields.find((f) => f.name === name)?.label ?? name;
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {versions === null ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <ol class="versions">
          {versions.map((v, at) => {
            const before = versions[at + 1]?.record;
            return (
              <li key={v.version}>
                <p>
                  <strong>Version {v.version}</strong> · {v.operation.toLowerCase()} · {new Date(v.createdAt).toLocaleString()} · by {v.apiKeyId ? 'an API key' : v.userId ? 'a member' : 'the system'} ({v.face.toLowerCase()})
                </p>
                {v.changedFields.length > 0 && (
                  <table class="diff">
                    <thead>
                      <tr>
                        <th scope="col">Field</th>
                        <th scope="col">Before</th>
                        <th scope="col">After</th>
                      </tr>
                    </thead>
                    <tbody>
                      {v.changedFields.map((name) => (
                        <tr key={name}>
                          <th scope="row">{labelOf(name)}</th>
                          <td>
                            <del>{before ? shown(undefined, before[name]) : '—'}</del>
                          </td>
                          <td>
                            <ins>{shown(undefined, v.record[name])}</ins>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {at > 0 && (
                  <button type="button" class="secondary" disabled={readOnly !== null} title={readOnly ?? undefined} onClick={() => void restore(v.version)}>
                    Restore version {v.version}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <Problem text={problem} />
    </section>
  );
}

export function RecordPage({ d, id, readOnly }: { d: StudioEntity; id: string | null; readOnly: string | null }) {
  const [record, setRecord] = useState<Values | null>(null);
  const [values, setValues] = useState<Values>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const load = async () => {
    if (!id) return;
    const { data, error } = await readRecord(d.slug, id);
    if (error) return setProblem(messageOf(error, { NOT_FOUND: `This ${d.name.toLowerCase()} does not exist, or is not yours to see.` }));
    setRecord(data!.data);
    setValues(data!.data);
    setVersion((v) => v + 1);
  };
  useEffect(() => void load(), [d.slug, id]);

  const editing = id ? (!d.operations.update ? `${d.label} cannot be changed here` : readOnly) : !d.operations.create ? `${d.label} cannot be created here` : readOnly;
  const deleting = !d.operations.delete ? `${d.label} cannot be deleted here` : readOnly;

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const body = changesOf(d, values, record);
    const { data, error } = id ? await updateRecord(d.slug, id, body) : await createRecord(d.slug, body);
    setErrors(fieldErrorsOf(error));
    setProblem(error ? messageOf(error) : null);
    if (error || !data) return;
    if (!id) return navigate(`/data/${d.slug}/${String(data.data.id)}`);
    setSaved('Saved.');
    await load();
  };
  const remove = async () => {
    if (!id || !confirm(`Delete ${titleOf(d.slug, record ?? {})}?`)) return;
    const { error } = await deleteRecord(d.slug, id);
    if (error) return setProblem(messageOf(error));
    navigate(`/data/${d.slug}`);
  };
  const act = async (path: string, label: string) => {
    if (!id) return;
    const { error } = await runAction(d.slug, path, id);
    setProblem(error ? messageOf(error) : null);
    setSaved(error ? null : `${label}: done.`);
    await load();
  };

  if (id && !record) {
    return (
      <main class="wide">
        {problem ? <Problem text={problem} /> : <p aria-busy="true">Loading…</p>}
      </main>
    );
  }
  const title = id ? titleOf(d.slug, record!) : `New ${d.name.toLowerCase()}`;
  return (
    <main class="wide">
      <p>
        <a
          href={`/console/data/${d.slug}`}
          onClick={(e) => {
            e.preventDefault();
            navigate(`/data/${d.slug}`);
          }}
        >
          ← {d.label}
        </a>
      </p>
      <h1>{title}</h1>
      {editing && (
        <p class="hint" id="edit-reason">
          {editing}
        </p>
      )}
      <form onSubmit={(e) => void save(e)} noValidate class="record-form">
        {d.fields
          .filter((f) => id || !f.virtual)
          .map((f) => (
            <FieldInput key={f.name} field={f} value={values[f.name]} problem={errors[f.name]} disabled={editing !== null} onChange={(v) => setValues({ ...values, [f.name]: v })} />
          ))}
        <div class="actions">
          <button type="submit" disabled={editing !== null} title={editing ?? undefined} aria-describedby={editing ? 'edit-reason' : undefined}>
            {id ? 'Save' : `Create the ${d.name.toLowerCase()}`}
          </button>
          {id &&
            d.actions.map((a) => (
              <button key={a.path} type="button" class="secondary" disabled={readOnly !== null} title={readOnly ?? undefined} onClick={() => void act(a.path, a.label)}>
                {a.label}
              </button>
            ))}
          {id && (
            <button type="button" class="danger" disabled={deleting !== null} title={deleting ?? undefined} onClick={() => void remove()}>
              Delete
            </button>
          )}
        </div>
      </form>
      {saved && <p role="status">{saved}</p>}
      <Problem text={problem} />
      {id && d.children.map((c) => <Children key={c.slug} d={d} id={id} child={c} records={(record?.[c.slug] as Values[] | undefined) ?? []} readOnly={readOnly} onChanged={() => void load()} />)}
      {id && d.history && <History d={d} id={id} version={version} readOnly={editing} onRestored={() => void load()} />}
    </main>
  );
}
