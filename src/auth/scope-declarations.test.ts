// Authorization is declared once (issue 15): scopes are named on GraphQL fields (`authScopes`), in
// module descriptions, in configuration (env defaults, entity definitions) and in HTTP declarations,
// and checked by the one matcher through scope-auth (fields, and through its checks the REST router and
// the pipeline's HTTP declarations: graphql/operation-authority.ts), the action runner (handlers'
// declared creator scopes) and the realtime recheck (an open subscription's read scope). This reads the source tree and fails on a `hasScope(`
// call or a scope string anywhere else, so a service cannot grow a check of its own again.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

/** The generic enforcers: the matcher, scope-auth, the action runner. */
// The action runner checks a creator's scopes again at each run, and the realtime service a
// subscriber's at each recheck of an open subscription (a role change takes effect on it).
const hasScopeCallers = new Set(['auth/scopes.ts', 'graphql/builder.ts', 'modules/scheduled-actions/run-handler.ts', 'modules/realtime/service.ts']);

/** Where a scope may be named outside a call's arguments checked below. */
const scopeDeclarationFiles = [
  /^modules\/[a-z-]+\/schema\.ts$/, // field declarations (authScopes)
  /^modules\/[a-z-]+\/module\.ts$/, // module descriptions (scopes, action handlers' creator scopes)
  /^config\//, // env defaults (RATE_LIMIT_SCOPES), entity definitions' permissions
  /^testkit\//, // test support: keys minted for tests
  /^fuzz\//, // the fuzzer's world: keys it mints
];

/** HTTP declarations name their scope in the declaration itself. */
const declaringCalls = new Set(['defineHttpRoute']);

/** A scope string: `resource:read|write|delete|*` (auth/scopes.ts's grammar). */
const scopeLiteral = /^[a-z][a-z0-9_-]*:(read|write|delete|\*)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Whether `node` is inside the arguments of a call to one of `declaringCalls`. */
function insideDeclaration(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at; at = at.parent) {
    if (ts.isCallExpression(at) && ts.isIdentifier(at.expression) && declaringCalls.has(at.expression.text)) return true;
  }
  return false;
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
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && scopeLiteral.test(node.text) && !declares && !insideDeclaration(node)) literals.push(at(node));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { calls, literals };
}

describe('authorization is declared once', () => {
  const found = findings();

  it('calls hasScope only in the matcher, scope-auth, the action runner and the realtime recheck', () => {
    expect(found.calls).toEqual([]);
  });

  it('names scopes only in field declarations, module descriptions, configuration and HTTP declarations', () => {
    expect(found.literals).toEqual([]);
  });

  it('sees the declarations it allows (the check reads the tree it means to)', () => {
    const schema = readFileSync(path.join(root, 'modules/media/schema.ts'), 'utf8');
    expect(schema).toMatch(/scope: 'media:read'/);
    expect(sourceFiles(root).length).toBeGreaterThan(50);
  });
});
