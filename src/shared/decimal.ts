// Exact decimals (an entity's `decimal` field: numeric(precision, scale) in PostgreSQL): read from
// what a client sends (a string such as "12.30", or a JSON number written without an exponent),
// compared and shown as strings with exactly `scale` digits after the point. Arithmetic is on BigInt
// units of 10^-scale, never on floating point: 0.1 + 0.2 is 0.30.

export interface DecimalShape {
  precision: number;
  scale: number;
}

const pattern = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Whether `value` is a decimal's text a condition, a cursor or GraphQL's Decimal may carry (40 digits each side at most). */
export const decimalTextPattern = '^-?\\d{1,40}(\\.\\d{1,40})?$';
const decimalText = new RegExp(decimalTextPattern);
export const isDecimalText = (value: unknown): value is string => typeof value === 'string' && decimalText.test(value);

/** `value` as a decimal of `shape` ("12.30"), or why it is not one. */
export function parseDecimal(value: unknown, shape: DecimalShape): { value: string } | { error: string } {
  const text = typeof value === 'number' && Number.isFinite(value) ? numberText(value) : value;
  const match = typeof text === 'string' ? pattern.exec(text) : null;
  if (!match) return { error: 'must be a decimal number, written as a string ("12.30")' };
  const [, sign = '', whole = '', fraction = ''] = match;
  if (fraction.replace(/0+$/, '').length > shape.scale) return { error: `must have at most ${shape.scale} digits after the decimal point` };
  const digits = whole.replace(/^0+(?=\d)/, '');
  const before = shape.precision - shape.scale;
  if (digits !== '0' && digits.length > before) return { error: `must have at most ${before} digits before the decimal point` };
  return { value: formatUnits(BigInt(`${sign}${digits}${fraction.padEnd(shape.scale, '0').slice(0, shape.scale)}`), shape.scale) };
}

/** A JSON number's digits without an exponent (1e-7 → "0.0000001"), or null past what a decimal holds. */
export function numberText(n: number): string | null {
  const text = String(n);
  if (!/e/i.test(text)) return text;
  return Math.abs(n) < 1e21 ? n.toFixed(20).replace(/\.?0+$/, '') : null;
}

/** `units` of 10^-scale as a decimal string with exactly `scale` digits after the point. */
export function formatUnits(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return negative ? `-${text}` : text;
}

/** A decimal string (any number of digits after the point) in units of 10^-scale, cut (not rounded) past it. */
export function unitsOf(text: string, scale: number): bigint {
  const match = pattern.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const [, sign = '', whole = '', fraction = ''] = match;
  return BigInt(`${sign}${whole}${fraction.padEnd(scale, '0').slice(0, scale)}`);
}

/** The order of two decimal strings (-1, 0, 1), exactly. */
export function compareDecimals(a: string, b: string): number {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const x = unitsOf(a, scale);
  const y = unitsOf(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

const fractionDigits = (text: string) => pattern.exec(text.trim())?.[3]?.length ?? 0;

/**
 * A stored value (Prisma's Decimal, PostgreSQL's numeric text, or a number) as the API shows it:
 * exactly `scale` digits after the point, rounded half away from zero past them (an average).
 */
export function showDecimal(value: unknown, scale: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && 'toFixed' in value && typeof value.toFixed === 'function') return String(value.toFixed(scale));
  const text = typeof value === 'number' ? numberText(value) : String(value);
  if (text === null || !pattern.test(text)) return null;
  const extra = unitsOf(text, scale + 1);
  const rounded = (extra < 0n ? extra - 5n : extra + 5n) / 10n;
  return formatUnits(rounded, scale);
}
