import { describe, expect, it } from 'vitest';
import { hasGlobalRole } from './actor.js';
import { hasScope } from './scopes.js';

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
