// The module list (src/module-list.ts) as the app takes it: frozen (no route or module can be added
// to it), an app's action types are those of its own list, and the HTTP declarations' traits enforced by the
// pipeline: an upload needs media:write (401 anonymous, 403 with the contract's message and no `code`),
// a rendition media:read; the stored-file route runs outside it; a path an HTTP declaration takes
// answers other methods 405 with Allow, in that route's error format. The scope an action type requires
// of its creator is declared in its module's description and checked by the queue (run-handler.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signUp, type SignedUpUser } from '../testkit/accounts.js';
import { bearer, createKey } from '../testkit/api-keys.js';
import { pngFile, upload } from '../testkit/media.js';
import { userWithRole, withActions } from '../testkit/scheduled-actions.js';
import { createTestApp, type TestApp } from '../testkit/test-app.js';
import { composition, modules } from '../module-list.js';
import { defineAction, type ModuleDescription } from './module-description.js';

let t: TestApp;
let alice: SignedUpUser;

beforeAll(async () => {
  t = await createTestApp();
  alice = await signUp(t);
});
afterAll(() => t.close());

describe('the module list after start-up', () => {
  it('has every module’s action types; an app of another list has that list’s; the list and its tables take nothing more', async () => {
    const own = defineAction({ handler: { actionType: 'test:own', payload: z.object({}), run: async () => {} } });
    const other = await createTestApp({}, t, { modules: withActions(own) });
    try {
      const developer = await userWithRole(t, 'developer');
      const typesOf = async (app: TestApp) => (await app.json('GET', '/api/v1/devtools/scheduled-actions', undefined, bearer(developer.key.key))).body.data.meta.registeredActionTypes;
      expect(await typesOf(t)).toEqual(expect.arrayContaining(['content:publish', 'social:refresh-tokens', 'webhook:send']));
      expect(await typesOf(t)).not.toContain('test:own');
      expect(await typesOf(other)).toEqual(expect.arrayContaining(['content:publish', 'webhook:send', 'test:own']));
      // Each app schedules its own types only.
      const create = (app: TestApp) => app.json('POST', '/api/v1/devtools/scheduled-actions', { actionType: 'test:own', payload: {} }, bearer(developer.key.key));
      expect((await create(t)).body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'Unknown action type "test:own"' });
      expect((await create(other)).status).toBe(201);
    } finally {
      await other.close();
    }
    expect(() => (modules as ModuleDescription[]).push({ name: 'late' })).toThrow(TypeError);
    expect(() => (composition.routes as unknown[]).push(composition.routes[0])).toThrow(TypeError);
    expect(() => (composition.httpRoutes as unknown[]).pop()).toThrow(TypeError);
    const media = modules.find((m) => m.name === 'media')!;
    expect(() => Object.assign(media, { routes: [] })).toThrow(TypeError);
    const uploadRoute = media.httpRoutes!.find((r) => r.path === '/api/v1/media/upload')!;
    expect(() => Object.assign(uploadRoute, { scope: undefined })).toThrow(TypeError);
  });
});

describe('HTTP declarations in the pipeline', () => {
  const png = pngFile(8, 8);

  it('upload: anonymous 401, a key without media:write 403 with the contract message (media errors carry no code), with it 200', async () => {
    const anonymous = await upload(t, [{ name: 'a.png', content: await png }]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: false, error: 'Unauthorized' });
    const reader = await createKey(t, alice, { scopes: ['media:read'] });
    const refused = await upload(t, [{ name: 'a.png', content: await png }], bearer(reader.key));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: 'Insufficient permissions - media:write scope required' });
    const writer = await createKey(t, alice, { scopes: ['media:write'] });
    const stored = await upload(t, [{ name: 'a.png', content: await png }], bearer(writer.key));
    expect(stored.status).toBe(200);

    // Stored files are outside the pipeline: the URL is the capability.
    const url: string = stored.body.data.urls[0];
    expect((await t.fetch(url)).status).toBe(200);
    // A rendition needs media:read: the writer's key is refused, in media's format.
    const id: string = stored.body.data.media[0].id;
    const rendition = await t.json('GET', `/api/v1/media/${id}/render?w=4`, undefined, bearer(writer.key));
    expect(rendition).toMatchObject({ status: 403, body: { success: false, error: 'Insufficient permissions - media:read scope required' } });
    expect(rendition.body.code).toBeUndefined();
  });

  it('other methods on an HTTP declaration’s path: 405 with Allow, in its error format', async () => {
    const render = await t.json('DELETE', '/api/v1/media/0b7f3c52-5f55-4c3c-9a51-0d3c1f0e9a11/render');
    expect(render.status).toBe(405);
    expect(render.headers.get('allow')).toBe('GET, HEAD');
    expect(render.body.code).toBeUndefined();
    const stored = await t.json('POST', '/uploads/temp/0b7f3c52-5f55-4c3c-9a51-0d3c1f0e9a11.png');
    expect(stored.status).toBe(405);
    expect(stored.headers.get('allow')).toBe('GET, HEAD');
    const cron = await t.json('POST', '/api/v1/cron/process');
    expect(cron).toMatchObject({ status: 405, body: { success: false, code: 'METHOD_NOT_ALLOWED' } });
    expect(cron.headers.get('allow')).toBe('GET');
  });
});

describe('action types declared by their modules', () => {
  it('webhook:send through the API needs webhooks:write, as its module declares: refused without it, nothing stored', async () => {
    const developer = await userWithRole(t, 'developer', ['scheduled-actions:*']);
    const event = { actionType: 'webhook:send', payload: { eventType: 'tasks:created', entityType: 'tasks', entityId: 't-1', data: {} }, teamId: developer.activeTeamId };
    const refused = await t.json('POST', '/api/v1/devtools/scheduled-actions', event, bearer(developer.key.key));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, code: 'FORBIDDEN', error: 'Insufficient permissions - webhooks:write scope required' });
    expect(await t.database.prisma.scheduledAction.count({ where: { createdBy: developer.id } })).toBe(0);
    const sender = await createKey(t, developer, { scopes: ['scheduled-actions:*', 'webhooks:write'] });
    const created = await t.json('POST', '/api/v1/devtools/scheduled-actions', event, bearer(sender.key));
    expect(created.status).toBe(201);
    expect(await t.database.prisma.scheduledAction.count({ where: { createdBy: developer.id } })).toBe(1);
  });
});
