// Record validation for create and update, from the definition alone: only defined fields, required,
// type, enum, min/max (length for text, value for numbers and decimals), pattern. Problems become 422
// VALIDATION_FAILED with `details` mapping each bad field to a message; defaults fill a create.
import type { FieldDefinition } from '../../config/entity-definition.js';
import { AppError } from '../../shared/errors.js';
import { compareDecimals, parseDecimal, showDecimal, type DecimalShape } from '../../shared/decimal.js';
import { isUuid } from '../../shared/validation.js';

export type Values = Record<string, unknown>;

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const datePattern = /^\d{4}-\d{2}-\d{2}$/;
/** 0001-01-01 and 10000-01-01 (UTC), in ms: PostgreSQL has no year 0, and four-digit years are what dates here are written with. */
const storableTimes = { from: -62_135_596_800_000, until: 253_402_300_800_000 };

/** Whether a time (ms since the epoch; NaN for an unreadable date) is one a date column holds: years 0001 to 9999. */
export function isStorableTime(time: number): boolean {
  return !Number.isNaN(time) && time >= storableTimes.from && time < storableTimes.until;
}

/** A decimal field's precision and scale (sanitizeEntities filled them in). */
export const decimalShape = (field: FieldDefinition): DecimalShape => ({ precision: field.precision ?? 12, scale: field.scale ?? 2 });

/** The range of a 32-bit integer column (PostgreSQL integer). */
export const int32 = { min: -2_147_483_648, max: 2_147_483_647 };

/** The stored value of one field, or a message saying why the input cannot be one. */
export function coerceField(field: FieldDefinition, value: unknown): { value: unknown } | { error: string } {
  if (value === null) return field.required ? { error: 'is required' } : { value: field.type === 'multiselect' || field.many ? [] : null };
  const { min, max, pattern } = field.validation ?? {};
  switch (field.type) {
    case 'string':
    case 'text':
    case 'email':
    case 'url': {
      if (typeof value !== 'string') return { error: 'must be a string' };
      if (field.required && value.trim() === '') return { error: 'is required' };
      if (min !== undefined && value.length < min) return { error: `must be at least ${min} characters` };
      if (max !== undefined && value.length > max) return { error: `must be at most ${max} characters` };
      if (field.type === 'email' && !emailPattern.test(value)) return { error: 'must be an e-mail address' };
      if (field.type === 'url' && !/^https?:\/\/[^\s]+$/.test(value)) return { error: 'must be an http(s) URL' };
      if (pattern !== undefined && !new RegExp(pattern, 'u').test(value)) return { error: `must match ${pattern}` };
      return { value };
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { error: 'must be a number' };
      if (field.type === 'integer' && !Number.isInteger(value)) return { error: 'must be an integer' };
      if (field.type === 'integer' && (value < int32.min || value > int32.max)) return { error: 'is out of range' };
      if (min !== undefined && value < min) return { error: `must be at least ${min}` };
      if (max !== undefined && value > max) return { error: `must be at most ${max}` };
      return { value };
    }
    case 'decimal': {
      const parsed = parseDecimal(value, decimalShape(field));
      if ('error' in parsed) return parsed;
      if (min !== undefined && compareDecimals(parsed.value, String(min)) < 0) return { error: `must be at least ${min}` };
      if (max !== undefined && compareDecimals(parsed.value, String(max)) > 0) return { error: `must be at most ${max}` };
      return parsed;
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
    case 'date':
      return typeof value === 'string' && datePattern.test(value) && isStorableTime(Date.parse(`${value}T00:00:00Z`)) ? { value: new Date(`${value}T00:00:00Z`) } : { error: 'must be a date (YYYY-MM-DD, years 0001 to 9999)' };
    case 'datetime': {
      // Typed input: GraphQL's DateTime (and REST, whose bodies are its variables) gives a Date; the
      // in-process callers (hooks' context.entities, the seed) give ISO 8601 text.
      const time = value instanceof Date ? value.getTime() : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
      return isStorableTime(time) ? { value: new Date(time) } : { error: 'must be an ISO 8601 date-time (years 0001 to 9999)' };
    }
    case 'select':
      return typeof value === 'string' && field.enum!.includes(value) ? { value } : { error: `must be one of ${field.enum!.join(', ')}` };
    case 'multiselect': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 100)) return { error: 'must be a list of strings' };
      if (field.enum && !value.every((v) => field.enum!.includes(v as string))) return { error: `values must be among ${field.enum.join(', ')}` };
      if (value.length > 100) return { error: 'must have at most 100 values' };
      return { value: [...new Set(value as string[])] };
    }
    case 'json':
      return { value };
    case 'relation':
    case 'media': {
      // Whether the ids name records the caller may relate to (media: active media of its team) is the
      // write path's to check (writes.ts checkRelated). A list keeps its order, without repeats.
      const media = field.type === 'media';
      if (field.many) {
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && isUuid(v))) return { error: media ? 'must be a list of media ids' : `must be a list of ids of ${field.to} records` };
        if (value.length > 100) return { error: 'must have at most 100 ids' };
        return { value: [...new Set(value.map((v: string) => v.toLowerCase()))] };
      }
      return typeof value === 'string' && isUuid(value) ? { value: value.toLowerCase() } : { error: `must be the id of a ${media ? 'media' : field.to} record` };
    }
  }
}

/** A stored value as the API shows it (the way back from coerceField): dates as YYYY-MM-DD, instants as ISO strings, decimals as strings with their scale's digits. */
export function shown(field: FieldDefinition | undefined, value: unknown): unknown {
  if (field?.type === 'decimal') return showDecimal(value, decimalShape(field).scale);
  if (value instanceof Date) return field?.type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  return value;
}

function defaultOf(field: FieldDefinition): unknown {
  if (field.default === undefined) return field.type === 'multiselect' ? [] : undefined;
  const result = coerceField(field, field.default);
  return 'value' in result ? result.value : undefined;
}

export interface Validated {
  values: Values;
  metas?: Record<string, string | null>;
}

function metasOf(input: unknown, problems: Record<string, string>): Record<string, string | null> | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    problems.metas = 'must be an object of string keys to string values';
    return undefined;
  }
  const entries = Object.entries(input);
  if (entries.length > 100 || !entries.every(([k, v]) => k.length > 0 && k.length <= 100 && (v === null || (typeof v === 'string' && v.length <= 10_000)))) {
    problems.metas = 'must be an object of string keys (≤ 100 characters) to string values (or null to remove)';
    return undefined;
  }
  return Object.fromEntries(entries) as Record<string, string | null>;
}

/**
 * Validates a create (`partial: false`: required fields, defaults) or an update (`partial: true`:
 * only the given fields). Throws 422 listing every bad field.
 */
export function validateRecord(fields: readonly FieldDefinition[], input: unknown, options: { partial: boolean; metas: boolean }): Validated {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new AppError('VALIDATION_FAILED', 'Validation failed', { body: 'must be a JSON object' });
  }
  // Keys come from the request: without a prototype, `__proto__` is reported like any unknown key.
  const problems: Record<string, string> = Object.create(null) as Record<string, string>;
  const values: Values = {};
  const known = new Map(fields.map((f) => [f.name, f]));
  for (const key of Object.keys(input)) {
    if (!known.has(key) && !(key === 'metas' && options.metas)) problems[key] = 'is not a field of this entity';
  }
  for (const field of fields) {
    const present = Object.hasOwn(input, field.name);
    const raw = (input as Values)[field.name];
    if (!present || raw === undefined) {
      if (options.partial) continue;
      const fallback = defaultOf(field);
      if (fallback !== undefined) values[field.name] = fallback;
      else if (field.required) problems[field.name] = 'is required';
      continue;
    }
    const result = coerceField(field, raw);
    if ('error' in result) problems[field.name] = result.error;
    else values[field.name] = result.value;
  }
  const metas = options.metas ? metasOf((input as Values).metas, problems) : undefined;
  if (options.partial && Object.keys(values).length === 0 && metas === undefined && Object.keys(problems).length === 0) {
    problems.body = 'at least one field is required';
  }
  if (Object.keys(problems).length) throw new AppError('VALIDATION_FAILED', 'Validation failed', problems);
  return metas === undefined ? { values } : { values, metas };
}
