// An entity's page: its records in a table with the columns a person picks (kept in this browser),
// sorted by a sortable column, filtered (filters.tsx), searched, paged by cursor, and kept live by the
// entity's change subscription (`taskEvents`: a record changed anywhere changes here); above
// it, how many records there are by the first filterable choice field, as a small bar chart; and its
// trash, for entities that keep deleted records.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { messageOf } from './api.js';
import type { StudioEntity } from './definitions.js';
import { shown, titleOf } from './field-input.js';
import { emptyGroup, FilterEditor, whereOf, type Group } from './filters.js';
import { Problem } from './forms.js';
import { Link } from './navigation.js';
import { countsBy, listRecords, restoreRecord, trashRecords, watchRecords, type Pagination, type Values } from './records.js';

const pageSize = 20;

function useColumns(d: StudioEntity): [string[], (names: string[]) => void] {
  const key = `console.columns.${d.slug}`;
  const saved = (() => {
    try {
      const names = JSON.parse(localStorage.getItem(key) ?? 'null') as unknown;
      return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string' && d.fields.some((f) => f.name === n)) : null;
    } catch {
      return null;
    }
  })();
  const [columns, setColumns] = useState<string[]>(saved?.length ? saved : [...d.listColumns]);
  return [columns, (names) => (localStorage.setItem(key, JSON.stringify(names)), setColumns(names))];
}

/** Counts by the entity's first filterable choice field, as bars. */
function Chart({ d, version }: { d: StudioEntity; version: number }) {
  const field = d.fields.find((f) => f.type === 'select' && f.filterable);
  const [groups, setGroups] = useState<{ key: string; count: number }[] | null>(null);
  useEffect(() => {
    if (!field) return;
    let current = true;
    void countsBy(d.slug, field.name).then((counts) => current && setGroups(counts.map((g) => ({ key: g.key ?? '—', count: g.count }))));
    return () => void (current = false);
  }, [d.slug, version]);
  if (!field || !groups?.length) return null;
  const most = Math.max(...groups.map((g) => g.count));
  return (
    <figure class="chart">
      <figcaption>
        {d.label} by {field.label.toLowerCase()}
      </figcaption>
      <ul>
        {groups.map((g) => (
          <li key={g.key}>
            <span class="bar-label">{g.key}</span>
            <span class="bar" style={{ width: `${Math.max(2, (g.count / most) * 100)}%` }} aria-hidden="true" />
            <span class="bar-count">{g.count}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

export function EntityList({ d, readOnly }: { d: StudioEntity; readOnly: string | null }) {
  const [columns, setColumns] = useColumns(d);
  const [sort, setSort] = useState<{ by: string; order: 'asc' | 'desc' }>({ by: 'createdAt', order: 'desc' });
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<Group>(emptyGroup());
  const [applied, setApplied] = useState<Group>(emptyGroup());
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [rows, setRows] = useState<Values[] | null>(null);
  const [pagination, setPagination] = useState<Pagination>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [trash, setTrash] = useState(false);
  const fieldsByName = useMemo(() => new Map(d.fields.map((f) => [f.name, f])), [d]);
  const searchable = d.fields.some((f) => f.searchable);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    const query = { limit: pageSize, sortBy: sort.by, sortOrder: sort.order, search: search || undefined, where: whereOf(d, applied), cursor };
    // An answer overtaken by a newer query (typing in Search, another page) is dropped, not shown over it.
    let current = true;
    void (trash ? trashRecords(d.slug, { limit: pageSize, cursor }) : listRecords(d.slug, query)).then(({ data, error }) => {
      if (!current) return;
      setProblem(error ? messageOf(error) : null);
      setRows(data?.data ?? []);
      setPagination(data?.pagination ?? {});
    });
    return () => void (current = false);
  }, [d.slug, sort, search, applied, cursor, version, trash]);

  // Live: any change to the entity that this caller may see reloads the page shown (debounced).
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = watchRecords(d.slug, () => {
      clearTimeout(timer);
      timer = setTimeout(() => setVersion((v) => v + 1), 150);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [d.slug]);

  const restart = () => setCursors([undefined]);
  const sortBy = (name: string) => {
    setSort((s) => ({ by: name, order: s.by === name && s.order === 'asc' ? 'desc' : 'asc' }));
    restart();
  };
  const creating = !d.operations.create ? `${d.label} cannot be created here` : readOnly;
  const restore = async (id: string) => {
    const { error } = await restoreRecord(d.slug, id);
    setProblem(error ? messageOf(error) : null);
    setVersion((v) => v + 1);
  };

  return (
    <main class="wide">
      <div class="heading">
        <h1>{d.label}</h1>
        {creating ? (
          <button type="button" disabled title={creating} aria-describedby="create-reason">
            New {d.name.toLowerCase()}
          </button>
        ) : (
          <Link to={`/data/${d.slug}/new`} class="button primary">
            New {d.name.toLowerCase()}
          </Link>
        )}
        {creating && (
          <span id="create-reason" class="hint">
            {creating}
          </span>
        )}
      </div>
      <Chart d={d} version={version} />
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(filter);
          restart();
        }}
      >
        {searchable && (
          <label class="inline">
            Search
            <input type="search" value={search} onInput={(e) => (setSearch((e.currentTarget as HTMLInputElement).value), restart())} />
          </label>
        )}
        <details>
          <summary>Filter</summary>
          <FilterEditor entity={d} group={filter} onChange={setFilter} />
          <button type="submit">Apply the filter</button>
        </details>
        <details>
          <summary>Columns</summary>
          <fieldset>
            <legend>Columns shown</legend>
            {d.fields.map((f) => (
              <label key={f.name} class="inline">
                <input type="checkbox" checked={columns.includes(f.name)} onChange={(e) => setColumns((e.currentTarget as HTMLInputElement).checked ? d.fields.map((o) => o.name).filter((n) => n === f.name || columns.includes(n)) : columns.filter((c) => c !== f.name))} />
                {f.label}
              </label>
            ))}
          </fieldset>
        </details>
        {d.softDelete && (
          <label class="inline">
            <input type="checkbox" checked={trash} onChange={(e) => (setTrash((e.currentTarget as HTMLInputElement).checked), restart())} />
            Trash
          </label>
        )}
      </form>
      <Problem text={problem} />
      {rows === null ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <div class="table-scroll">
          <table>
            <caption class="visually-hidden">
              {trash ? `Deleted ${d.label.toLowerCase()}` : d.label}
              {pagination.total !== undefined && `, ${pagination.total} in all`}
            </caption>
            <thead>
              <tr>
                {columns.map((name) => {
                  const field = fieldsByName.get(name);
                  const sorted = sort.by === name ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined;
                  return (
                    <th key={name} scope="col" aria-sort={sorted}>
                      {field?.sortable && !trash ? (
                        <button type="button" class="link" onClick={() => sortBy(name)}>
                          {field.label}
                          {sorted && (sorted === 'ascending' ? ' ▲' : ' ▼')}
                        </button>
                      ) : (
                        (field?.label ?? name)
                      )}
                    </th>
                  );
                })}
                {trash && <th scope="col">Restore</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={String(row.id)}>
                  {columns.map((name, at) => (
                    <td key={name}>
                      {at === 0 && !trash ? <Link to={`/data/${d.slug}/${String(row.id)}`}>{name === d.titleField ? titleOf(d.slug, row) : shown(fieldsByName.get(name), row[name])}</Link> : shown(fieldsByName.get(name), row[name])}
                    </td>
                  ))}
                  {trash && (
                    <td>
                      <button type="button" class="secondary" disabled={readOnly !== null} title={readOnly ?? undefined} onClick={() => void restore(String(row.id))}>
                        Restore {titleOf(d.slug, row)}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {!rows.length && <p>No {d.label.toLowerCase()} {trash ? 'in the trash' : 'match'}.</p>}
        </div>
      )}
      <nav class="actions" aria-label="Pages">
        <button type="button" class="secondary" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous page
        </button>
        <button type="button" class="secondary" disabled={!pagination.nextCursor} onClick={() => setCursors((c) => [...c, pagination.nextCursor ?? undefined])}>
          Next page
        </button>
        {pagination.total !== undefined && <span class="hint">{pagination.total} in all</span>}
      </nav>
    </main>
  );
}
