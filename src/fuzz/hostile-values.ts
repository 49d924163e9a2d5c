// What an attacker types: strings with control characters (NUL included), odd unicode, huge and empty
// values; numbers at the edges of 32 and 53 bits, -0, 1e308 and their string forms; prototype keys;
// deep nesting. Generators elsewhere mix these with values that follow the schema.
import fc from 'fast-check';
import type { JsonTree } from './json-text.js';

/** Keys that find Object.prototype members in a plain object, or rewrite its prototype. */
export const prototypeKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__', '__lookupSetter__', 'propertyIsEnumerable', 'toLocaleString'];

/** Numbers as text, for query strings, path segments and string fields that expect digits. */
export const oddNumberTexts = ['0', '-0', '-1', '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740991', '9007199254740993', '99999999999', '1e308', '1e309', '-1e308', '5e-324', '1.5', '0x10', '1_000', '01', ' 1', 'NaN', 'Infinity', '-Infinity', '1e3', '١٢٣', ''];

/** Dates at and past the edges of what a database or Date holds. */
export const oddDates = ['0000-01-01', '0001-01-01', '9999-12-31', '10000-01-01', '-000001-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', '2024-02-30', '2024-13-01', '1970-01-01T00:00:00Z', '2024-01-01T25:00:00Z', '2024-01-01T00:00:00+99:00'];

const controlChars = fc.constantFrom('\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\r', '\u000b', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029');
const oddUnicode = fc.constantFrom('\ud800', '\udfff', '\ud83d\ude00', '\u202e', '\u200b', '\ufeff', '\ufffd', '\uffff', 'ǅ', 'ﬃ', 'İ', 'e\u0301', 'Ⅻ', '𝔘𝔫𝔦', '\u0000\u0000', 'Ω');
const attackTexts = fc.constantFrom("' OR 1=1 --", '"; DROP TABLE users; --', '%00', '%', '%zz', '%%', '../../../etc/passwd', '..\\..\\windows', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '\\', '"', "'", '`', '*', '%_', '\\u0000', 'null', 'undefined', 'true', '[]', '{}', 'a,b,,c', ',', '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', 'sk_live_' + 'A'.repeat(40), 'sk_test_short');

/** One short string an attacker would try (what fits in a header). */
export const shortHostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 4 }), controlChars, oddUnicode), { maxLength: 8 }).map((parts) => parts.join('')) },
  { weight: 2, arbitrary: attackTexts },
  { weight: 1, arbitrary: fc.constantFrom(...prototypeKeys) },
  { weight: 1, arbitrary: fc.constantFrom(...oddNumberTexts) },
  { weight: 1, arbitrary: fc.constantFrom(...oddDates) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }).map((s) => `${s}\u0000${s}`) },
);

/** One string an attacker would try, long ones (past field limits, past 64 KiB) included. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: shortHostileString },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('a', '\u0000', 'é', '😀', '%', ' '), fc.constantFrom(256, 1_000, 10_001, 70_000)).map(([c, n]) => c.repeat(n)) },
);

/** A very large string (past the usual field and body limits). */
export const hugeString = fc.constantFrom(100_000, 1_100_000).map((n) => 'x'.repeat(n));

/** Numbers at the edges, as JSON trees (raw literals for what JSON.stringify cannot write). */
export const oddNumber: fc.Arbitrary<JsonTree> = fc.oneof(
  fc.constantFrom<JsonTree>(0, -0, -1, 1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 5e-324, 0.5, 1.5, Number.MAX_VALUE),
  fc.constantFrom<JsonTree>({ raw: '1e999' }, { raw: '-1e999' }, { raw: '123456789012345678901234567890' }, { raw: '1E400' }, { raw: '-0.0' }, { raw: '0.0000000000000000000000000001' }),
  fc.integer().map((n): JsonTree => n),
  fc.double().map((n): JsonTree => n),
);

/** A key of a generated object: prototype keys, odd strings, or short plain names. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...prototypeKeys) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
  { weight: 1, arbitrary: hostileString },
);

/** Arrays or objects nested `depth` deep around a leaf, built without recursion. */
export const deepNesting: fc.Arbitrary<JsonTree> = fc.tuple(fc.constantFrom(16, 100, 1_000, 10_000), fc.boolean()).map(([depth, arrays]) => {
  let tree: JsonTree = 1;
  for (let i = 0; i < depth; i++) tree = arrays ? [tree] : { entries: [['a', tree]] };
  return tree;
});

/** Any JSON value an attacker would send, nested a few levels. */
export const hostileJson: fc.Arbitrary<JsonTree> = fc.letrec<{ value: JsonTree }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: hostileString.map((s): JsonTree => s) },
    { weight: 2, arbitrary: oddNumber },
    { weight: 1, arbitrary: fc.constantFrom<JsonTree>(null, true, false) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map((entries): JsonTree => ({ entries })) },
  ),
})).value;

/** A reference to a seeded value (world.ts), resolved when the request is sent. */
export const refText = (name: string) => `«ref:${name}»`;
