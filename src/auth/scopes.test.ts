import { describe, expect, it } from 'vitest';
import { hasGlobalRole } from './actor.js';
import { effectiveKeyScopes, hasScope, scopeRefusal, scopeResourcesOf } from './scopes.js';

describe('hasScope', () => {
  it.each([
    [['tasks:read'], 'tasks:read', true],
    [['tasks:read'], 'tasks:write', false],
    [['tasks:*'], 'tasks:delete', true],
    [['tasks:*'], 'posts:read', false],
    [['*'], 'anything:write', true],
    [['posts:read', 'tasks:write'], 'tasks:write', true],
    [[], 'tasks:read', false],
    [['tasks'], 'tasks:read', false],
    [['task:*'], 'tasks:read', false],
  ])('%j grants %s: %s', (granted, required, expected) => {
    expect(hasScope(granted, required)).toBe(expected);
  });
});

describe('hasGlobalRole', () => {
  it('orders member < developer < superadmin', () => {
    expect(hasGlobalRole('superadmin', 'developer')).toBe(true);
    expect(hasGlobalRole('developer', 'developer')).toBe(true);
    expect(hasGlobalRole('member', 'developer')).toBe(false);
    expect(hasGlobalRole('developer', 'superadmin')).toBe(false);
  });
});

describe('which role may put a scope on a key', () => {
  const resources = scopeResourcesOf([
    { name: 'ops-test', description: 'a developer-only resource', minimumRole: 'developer' },
    { name: 'notes-test', description: 'a member resource' },
  ]);

  it.each([
    ['member', 'notes-test:read', null],
    ['member', 'notes-test:*', null],
    ['member', 'ops-test:read', /requires the developer role/],
    ['developer', 'ops-test:write', null],
    ['superadmin', 'ops-test:delete', null],
    ['member', '*', /superadmins/],
    ['developer', '*', /superadmins/],
    ['superadmin', '*', null],
    ['superadmin', 'unknown-test:read', /unknown entity/],
    ['superadmin', 'notes-test:admin', /entity:action/],
    ['superadmin', 'notes-test', /entity:action/],
  ] as const)('%s granting %s', (role, scope, refusal) => {
    const answer = scopeRefusal(resources, scope, role);
    if (refusal === null) expect(answer).toBeNull();
    else expect(answer).toMatch(refusal);
  });

  it('refuses a module list that declares one resource twice, naming it', () => {
    expect(() => scopeResourcesOf([{ name: 'notes-test', description: 'a' }, { name: 'ops-test', description: 'b' }, { name: 'notes-test', description: 'c' }])).toThrow('Scope resources declared twice: notes-test');
  });

  it('cuts a key to what its owner’s current role allows', () => {
    expect(effectiveKeyScopes(resources, ['*', 'ops-test:read', 'notes-test:read'], 'member')).toEqual(['notes-test:read']);
    expect(effectiveKeyScopes(resources, ['*', 'ops-test:read'], 'superadmin')).toEqual(['*', 'ops-test:read']);
  });
});
