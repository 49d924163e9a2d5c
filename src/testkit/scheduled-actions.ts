// Seed builders for scheduled actions: developers with a key, the cron call, and rows seeded in SQL.
import { systemDb } from '../db/request-db.js';
import { modules } from '../module-list.js';
import { defineModule, type ActionDeclaration, type ModuleDescription } from '../modules/module-description.js';
import type { QueueScope } from '../modules/scheduled-actions/service.js';
import { signUp, type SignedUpUser } from './accounts.js';
import { createKey, type MintedKey } from './api-keys.js';
import type { TestClock } from './clock.js';
import type { JsonResponse, TestApp } from './test-app.js';

export const cronSecret = 'test-cron-secret-0123456789-abcdefghij';

/** GET /api/v1/cron/process with the secret (or the given headers). */
export function runCron(t: TestApp, headers: Record<string, string> = { 'x-cron-secret': cronSecret }): Promise<JsonResponse> {
  return t.json('GET', '/api/v1/cron/process', undefined, headers);
}

/**
 * A signed-up user with a global role and an API key: by default `teams:read` for a member and
 * `scheduled-actions:*` (the developer endpoints) for a developer or superadmin.
 */
export async function userWithRole(t: TestApp, role: 'member' | 'developer' | 'superadmin', scopes?: string[]): Promise<SignedUpUser & { key: MintedKey }> {
  const user = await signUp(t);
  if (role !== 'member') await t.database.prisma.user.update({ where: { id: user.id }, data: { role } });
  return { ...user, key: await createKey(t, user, { scopes: scopes ?? (role === 'member' ? ['teams:read'] : ['scheduled-actions:*']) }) };
}

/** What the in-process interface needs, outside any request: named system access, the test clock, the config. */
export function queueScope(t: TestApp, clock: TestClock): QueueScope {
  return { system: (purpose) => systemDb(t.database, purpose), now: clock.now, config: t.config, services: t.app.services };
}

/** The platform's module list and a test module declaring `actions` (action types of a test's own). */
export function withActions(...actions: ActionDeclaration<any>[]): readonly ModuleDescription[] {
  return [...modules, defineModule({ name: 'test actions', actions })];
}

/** One action row as stored. */
export function storedAction(t: TestApp, id: string) {
  return t.database.prisma.scheduledAction.findUniqueOrThrow({ where: { id } });
}
