// Authorization is one rule, declared once (issues 15 and 36): scopes are named in rules on GraphQL
// fields (`authScopes`), in a module's rules file, in module descriptions and in configuration (env
// defaults, entity definitions' permissions); HTTP declarations name the field whose rule they share.
// The one evaluator (auth/rules.ts) holds the only scope check: scope-auth runs its atoms on fields, and
// it judges the REST router's early refusal, HTTP declarations, realtime opening and re-checks and the
// action runner. This reads the source tree and fails on a `hasScope(` call or a scope string anywhere
// else, so a service or route cannot grow a check of its own again.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The matcher and the one evaluator. */
const hasScopeCallers = new Set(['auth/scopes.ts', 'auth/rules.ts']);

/** Where a scope may be named outside a call's arguments checked below. */
const scopeDeclarationFiles = [
  /^modules\/[a-z-]+\/schema\.ts$/, // field declarations (authScopes)
  /^modules\/[a-z-]+\/rules\.ts$/, // a module's rules, shared by its fields and its actions
  /^modules\/[a-z-]+\/module\.ts$/, // module descriptions (scopes, action handlers' creator scopes)
  /^config\//, // env defaults (RATE_LIMIT_SCOPES), entity definitions' permissions
  /^testkit\//, // test support: keys minted for tests
  /^fuzz\//, // the fuzzer's world: keys it mints
];


/** A scope string: `resource:read|write|delete|*` (auth/scopes.ts's grammar). */
const scopeLiteral = /^[a-z][a-z0-9_-]*:(read|write|delete|\*)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

interface Finding {
  file: string;
  line: number;
  text: string;
}

function findings(): { calls: Finding[]; literals: Finding[] } {
  const calls: Finding[] = [];
  const literals: Finding[] = [];
  for (const file of sourceFiles(root)) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node): Finding => ({ file: relative, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.getText().slice(0, 80) });
    const declares = scopeDeclarationFiles.some((pattern) => pattern.test(relative));
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'hasScope' && !hasScopeCallers.has(relative)) calls.push(at(node));
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && scopeLiteral.test(node.text) && !declares) literals.push(at(node));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { calls, literals };
}

describe('authorization is declared once', () => {
  const found = findings();

  it('calls hasScope only in the matcher and the one evaluator', () => {
    expect(found.calls).toEqual([]);
  });

  it('names scopes only in rules of fields and modules, module descriptions and configuration', () => {
    expect(found.literals).toEqual([]);
  });

  it('sees the declarations it allows (the check reads the tree it means to)', () => {
    const schema = readFileSync(path.join(root, 'modules/media/schema.ts'), 'utf8');
    expect(schema).toMatch(/scope: 'media:read'/);
    expect(sourceFiles(root).length).toBeGreaterThan(50);
  });
});
