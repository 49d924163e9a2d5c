// One input per field type of a definition, labelled, with the server's word about it (a 422's
// `details.errors` for its path) at the field: text, numbers, exact decimals, days and instants,
// choices (select, multiselect), JSON, relations (a picker searching what the caller may see) and
// media (upload, then a thumbnail of the picture). Virtual fields are shown, never written.
import { useEffect, useId, useState } from 'preact/hooks';
import { entityOf, type StudioField } from './definitions.js';
import { listRecords, type Values } from './records.js';
import { uploadFiles, thumbnailOf } from './media.js';

interface InputProps {
  field: StudioField;
  value: unknown;
  onChange: (value: unknown) => void;
  problem?: string;
  disabled?: boolean;
}

/** `datetime-local`'s value of an ISO instant, in the browser's time zone. */
const localOf = (iso: unknown) => {
  if (typeof iso !== 'string' || !iso) return '';
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** A record's name for people: its title field, else its id. */
export function titleOf(slug: string, record: Values): string {
  const d = entityOf(slug);
  const title = d ? record[d.titleField] : undefined;
  return typeof title === 'string' && title ? title : String(record.id ?? '');
}

/** How a value reads in a list cell. */
export function shown(field: StudioField | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.map(String).join(', ');
  if (field?.type === 'boolean') return value ? 'Yes' : 'No';
  if (field?.type === 'datetime' && typeof value === 'string') return new Date(value).toLocaleString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function RelationPicker({ field, value, onChange, disabled, describedBy, id }: InputProps & { describedBy?: string; id: string }) {
  const target = entityOf(field.to ?? '');
  const [search, setSearch] = useState('');
  const [options, setOptions] = useState<Values[]>([]);
  const chosen = field.many ? ((value as string[] | null) ?? []) : value ? [String(value)] : [];
  useEffect(() => {
    if (!target) return;
    const searchable = target.fields.some((f) => f.searchable);
    const timer = setTimeout(() => {
      // What the caller may see of the target, by its title; the chosen records are kept in the list.
      void listRecords(target.slug, { limit: 20, search: search && searchable ? search : undefined }).then(({ data }) => setOptions(data?.data ?? []));
    }, 200);
    return () => clearTimeout(timer);
  }, [search, target?.slug]);
  const known = new Set(options.map((o) => String(o.id)));
  const pick = (event: Event) => {
    const select = event.currentTarget as HTMLSelectElement;
    if (field.many) onChange([...select.selectedOptions].map((o) => o.value));
    else onChange(select.value || null);
  };
  return (
    <div class="picker">
      <input type="search" aria-label={`Search ${target?.label ?? field.to}`} value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} disabled={disabled} placeholder="Search…" />
      <select id={id} multiple={field.many} onChange={pick} disabled={disabled} aria-describedby={describedBy} required={field.required}>
        {!field.many && <option value="">—</option>}
        {chosen
          .filter((c) => !known.has(c))
          .map((c) => (
            <option key={c} value={c} selected>
              {c}
            </option>
          ))}
        {options.map((o) => (
          <option key={String(o.id)} value={String(o.id)} selected={chosen.includes(String(o.id))}>
            {titleOf(target!.slug, o)}
          </option>
        ))}
      </select>
    </div>
  );
}

function MediaPicker({ field, value, onChange, disabled, describedBy, id }: InputProps & { describedBy?: string; id: string }) {
  const ids = field.many ? ((value as string[] | null) ?? []) : value ? [String(value)] : [];
  const [busy, setBusy] = useState<string | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const add = async (files: FileList | null) => {
    if (!files?.length) return;
    setRefused(null);
    const uploaded = await uploadFiles([...files], setBusy);
    setBusy(null);
    if ('error' in uploaded) return setRefused(uploaded.error);
    const added = uploaded.media.map((m) => m.id);
    onChange(field.many ? [...ids, ...added] : added[0]);
  };
  return (
    <div class="media-field">
      <ul class="thumbnails">
        {ids.map((mediaId) => (
          <li key={mediaId}>
            <img src={thumbnailOf(mediaId)} alt="" width={96} height={96} loading="lazy" />
            <button type="button" class="link" disabled={disabled} onClick={() => onChange(field.many ? ids.filter((i) => i !== mediaId) : null)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <input id={id} type="file" multiple={field.many} disabled={disabled || busy !== null} aria-describedby={describedBy} onChange={(e) => void add((e.currentTarget as HTMLInputElement).files)} />
      {busy && <p role="status">{busy}</p>}
      {refused && (
        <p class="field-problem" role="alert">
          {refused}
        </p>
      )}
    </div>
  );
}

/** The input of one field, with its label and the server's word about it. */
export function FieldInput(props: InputProps) {
  const { field, value, onChange, problem, disabled } = props;
  const id = useId();
  const problemId = `${id}-problem`;
  const describedBy = problem ? problemId : undefined;
  const common = { id, disabled: disabled || field.virtual, 'aria-invalid': problem ? ('true' as const) : undefined, 'aria-describedby': describedBy };
  const text = (e: Event) => (e.currentTarget as HTMLInputElement).value;
  let input;
  switch (field.type) {
    case 'text':
      input = <textarea {...common} rows={4} value={(value as string) ?? ''} onInput={(e) => onChange(text(e))} />;
      break;
    case 'json':
      input = <textarea {...common} rows={4} class="code" value={typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value, null, 2)} onInput={(e) => onChange(text(e))} />;
      break;
    case 'boolean':
      input = <input {...common} type="checkbox" checked={Boolean(value)} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />;
      break;
    case 'number':
    case 'integer':
      input = <input {...common} type="number" step={field.type === 'integer' ? 1 : 'any'} min={field.min} max={field.max} value={value === null || value === undefined ? '' : String(value)} onInput={(e) => onChange(text(e) === '' ? null : Number(text(e)))} />;
      break;
    case 'decimal':
      input = <input {...common} inputMode="decimal" pattern="-?[0-9]*([.][0-9]*)?" value={(value as string) ?? ''} onInput={(e) => onChange(text(e) === '' ? null : text(e))} />;
      break;
    case 'date':
      input = <input {...common} type="date" value={(value as string) ?? ''} onInput={(e) => onChange(text(e) || null)} />;
      break;
    case 'datetime':
      input = <input {...common} type="datetime-local" value={localOf(value)} onInput={(e) => onChange(text(e) ? new Date(text(e)).toISOString() : null)} />;
      break;
    case 'select':
      input = (
        <select {...common} value={(value as string) ?? ''} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value || null)}>
          {!field.required && <option value="">—</option>}
          {field.enum?.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      );
      break;
    case 'multiselect': {
      const chosen = (value as string[] | null) ?? [];
      return (
        <fieldset aria-describedby={describedBy}>
          <legend>{field.label}</legend>
          {field.enum?.map((choice) => (
            <label key={choice} class="inline">
              <input type="checkbox" disabled={disabled} checked={chosen.includes(choice)} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked ? [...chosen, choice] : chosen.filter((c) => c !== choice))} />
              {choice}
            </label>
          ))}
          {problem && (
            <span id={problemId} class="field-problem">
              {problem}
            </span>
          )}
        </fieldset>
      );
    }
    case 'relation':
      input = <RelationPicker {...props} id={id} describedBy={describedBy} />;
      break;
    case 'media':
      input = <MediaPicker {...props} id={id} describedBy={describedBy} />;
      break;
    default:
      input = <input {...common} type={field.type === 'email' ? 'email' : field.type === 'url' ? 'url' : 'text'} value={(value as string) ?? ''} onInput={(e) => onChange(text(e))} />;
  }
  return (
    <div class="field">
      <label for={id}>
        {field.label}
        {field.required && <span aria-hidden="true"> *</span>}
        {field.virtual && <span class="hint"> (computed)</span>}
      </label>
      {input}
      {problem && (
        <span id={problemId} class="field-problem">
          {problem}
        </span>
      )}
    </div>
  );
}
