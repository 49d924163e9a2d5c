// Generated JSON as a tree that is serialized by hand, so the text says exactly what was generated:
// keys such as `__proto__` stay own keys (an object literal or JSON.stringify would lose or rename
// them), numbers can be literals JSON.stringify never writes (`1e999`, `-0`, 30 digits), and
// nesting can go deeper than a recursive serializer's stack.

/** A JSON value: objects keep their entries in order, duplicates included; `{raw}` is a number literal as written. */
export type JsonTree = null | boolean | number | string | { raw: string } | JsonTree[] | { entries: [string, JsonTree][] };

const isEntries = (tree: object): tree is { entries: [string, JsonTree][] } => 'entries' in tree;

/** The JSON text of `tree` (NaN and Infinity as `null`, as JSON.stringify writes them). */
export function jsonText(tree: JsonTree): string {
  const parts: string[] = [];
  // An explicit stack: deep nesting must not overflow ours.
  const stack: (JsonTree | { close: string })[] = [tree];
  while (stack.length) {
    const item = stack.pop()!;
    if (item !== null && typeof item === 'object' && 'close' in item) {
      parts.push(item.close);
      continue;
    }
    const value = item as JsonTree;
    if (value === null || typeof value === 'boolean') parts.push(String(value));
    else if (typeof value === 'number') parts.push(Number.isFinite(value) ? (Object.is(value, -0) ? '-0' : String(value)) : 'null');
    else if (typeof value === 'string') parts.push(JSON.stringify(value));
    else if (Array.isArray(value)) {
      parts.push('[');
      stack.push({ close: ']' });
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push(value[i]!);
        if (i > 0) stack.push({ close: ',' });
      }
    } else if (isEntries(value)) {
      parts.push('{');
      stack.push({ close: '}' });
      for (let i = value.entries.length - 1; i >= 0; i--) {
        const [key, child] = value.entries[i]!;
        stack.push(child);
        stack.push({ close: `${JSON.stringify(key)}:` });
        if (i > 0) stack.push({ close: ',' });
      }
    } else parts.push(value.raw);
  }
  return parts.join('');
}

/** An object tree from a plain record. */
export const objectTree = (record: Record<string, JsonTree>): JsonTree => ({ entries: Object.entries(record) });

/** A plain value (JSON.parse's view) as a tree. */
export function toTree(value: unknown): JsonTree {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(toTree);
  if (typeof value === 'object') return { entries: Object.entries(value).map(([k, v]) => [k, toTree(v)]) };
  return String(value);
}
