// The world a fuzz run happens in, seeded through the front door before it starts: a victim who owns a
// team, keys, two records of every entity (one with its required fields only and a child, one with
// every field, naming the first records of the entities it relates to), media with a tag, a webhook
// endpoint (a live local receiver) and scheduled actions far in the future; the fuzzing caller, a developer with a session
// and a narrow key, who owns the same kinds of things; and a superadmin holding a `*` key (the only
// role that may hold one). Generated requests name seeded things by reference (`«ref:victim.teamId»`,
// fuzz-request.ts), resolved when a request is sent, so a seed replays the same requests on a fresh
// world. A superadmin may act across teams by design, so the `*` key's requests name the fuzzing
// caller's things where they were generated with the victim's.
import { randomBytes } from 'node:crypto';
import { entityDefinitions } from '../config/entities/index.js';
import { relationFields } from '../config/entity-relations.js';
import { plansOf } from '../modules/teams/plans.js';
import { signUp, cookieFrom, type SignedUpUser } from '../testkit/accounts.js';
import { createKey } from '../testkit/api-keys.js';
import { pngFile, upload } from '../testkit/media.js';
import { addMember, createTeam } from '../testkit/teams.js';
import { httpClient, type TestApp } from '../testkit/test-app.js';
import { createEndpoint, startReceiver, type Receiver } from '../testkit/webhooks.js';
import { sampleRecord } from './entity-values.js';
import type { FuzzTarget } from './harness.js';

/** The scopes of the fuzzing caller's narrow key. */
export const narrowKeyScopes = ['tasks:read'] as const;

/** Header sets the fuzzer calls with. */
export type CallerKind = 'anonymous' | 'session' | 'wildcardKey' | 'narrowKey' | 'unknownKey';
export const callerKinds: readonly CallerKind[] = ['anonymous', 'session', 'wildcardKey', 'narrowKey', 'unknownKey'];

export interface World {
  /** Reference name → its value now (ids, tokens, secrets): what `«ref:name»` becomes. */
  refs: Map<string, string>;
  /** Names of the references generators may use in paths, queries and bodies (no credentials). */
  idRefs: string[];
  /** Strings that are not ids but name things (entity slugs, children, fields, limit slugs). */
  names: string[];
  /** The same, by kind: what a path parameter named `entity`, `child` or `limitSlug` takes. */
  slugs: { entity: string[]; child: string[]; limitSlug: string[] };
  victim: { userId: string; teamId: string; keyIds: string[] };
  /** The victim's webhook receiver: anything it receives was sent to another caller's endpoint. */
  receiver: Receiver;
  /** Values no log line may carry: full keys, session tokens, passwords, webhook secrets. */
  secrets(): string[];
  /** The values references take in `caller`'s requests (the `*` key's: the victim's replaced by the fuzzing caller's). */
  refsOf(caller: CallerKind): Map<string, string>;
  /** Credentials of a caller kind (read at send time: healing may replace them). */
  headersOf(caller: CallerKind, keyHeader: 'authorization' | 'x-api-key'): Record<string, string>;
  /** Restores the fuzzing caller's session and keys when a request revoked them. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

/** The TestApp shape the testkit's seed builders take, over a fuzz target. */
export function asTestApp(target: FuzzTarget): TestApp {
  return { app: target.app, config: target.config, database: target.database, origin: target.origin, ...httpClient(target.origin), close: target.close };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- seed answers are read as the testkit reads them (JsonResponse<any>)
async function ok<T>(what: string, response: Promise<{ status: number; body: any }>, pick: (body: any) => T): Promise<T> {
  const { status, body } = await response;
  if (status >= 300) throw new Error(`seeding ${what} failed: ${status} ${JSON.stringify(body)}`);
  return pick(body);
}

/** Seeds one user's things and records their ids under `who.`; returns the user. */
async function seedUser(t: TestApp, who: string, refs: Map<string, string>, endpointUrl: string): Promise<SignedUpUser> {
  const user = await signUp(t, { email: `${who}-${randomBytes(3).toString('hex')}@example.com` });
  await t.database.prisma.user.update({ where: { id: user.id }, data: { role: 'developer' } });
  const session = { cookie: user.cookie };
  refs.set(`${who}.userId`, user.id);
  refs.set(`${who}.email`, user.email);
  refs.set(`${who}.teamId`, user.activeTeamId);
  refs.set(`${who}.spareTeamId`, await createTeam(t, user, `${who}-${randomBytes(3).toString('hex')}`));
  refs.set(`${who}.apiKeyId`, (await createKey(t, user, { name: 'spare', scopes: ['media:read'] })).id);
  for (const [i, entity] of entityDefinitions.entries()) {
    // A required relation names the user's record of its target, seeded before it (definitions in file order).
    const related = Object.fromEntries(entity.fields.filter((f) => f.type === 'relation' && f.required).map((f) => [f.name, refs.get(`${who}.${f.to}Id`)]));
    const id = await ok(entity.slug, t.json('POST', `/api/v1/${entity.slug}`, { ...sampleRecord(entity.fields, i), ...related }, session), (b) => b.data.id as string);
    refs.set(`${who}.${entity.slug}Id`, id);
    for (const child of entity.children) {
      const childId = await ok(child.slug, t.json('POST', `/api/v1/${entity.slug}/${id}/child/${child.slug}`, sampleRecord(child.fields, i), session), (b) => b.data.id as string);
      refs.set(`${who}.${entity.slug}.${child.slug}Id`, childId);
    }
  }
  await seedRelated(t, who, refs, session);
  const uploaded = await upload(t, [{ name: `${who}.png`, content: await pngFile(8, 8), type: 'image/png' }], session);
  if (uploaded.status !== 200) throw new Error(`seeding media failed: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
  const mediaId = uploaded.body.data.media[0].id as string;
  refs.set(`${who}.mediaId`, mediaId);
  const tagId = await ok('tag', t.json('POST', '/api/v1/media-tags', { name: `${who} tag` }, session), (b) => b.data.id as string);
  refs.set(`${who}.tagId`, tagId);
  await ok('tag link', t.json('POST', `/api/v1/media/${mediaId}/tags`, { tagId }, session), () => null);
  refs.set(`${who}.webhookId`, (await createEndpoint(t, user, { url: endpointUrl })).id);
  const invitation = await ok('invitation', t.json('POST', `/api/v1/teams/${user.activeTeamId}/members`, { email: `invitee-${who}@example.com`, role: 'member' }, session), (b) => b.data);
  refs.set(`${who}.invitationId`, invitation.id);
  const members = await ok('members', t.json('GET', `/api/v1/teams/${user.activeTeamId}/members`, undefined, session), (b) => b.data as { id: string }[]);
  refs.set(`${who}.memberId`, members[0]!.id);
  refs.set(`${who}.invitationToken`, invitation.token);
  return user;
}

/**
 * A second record of every entity, every field filled, naming `who`'s records of the entities it
 * relates to (its own entity's first record too: a parent), so relation filters, `expand`, to-many
 * sides and groups meet records with values as well as the first ones' empty fields.
 */
async function seedRelated(t: TestApp, who: string, refs: Map<string, string>, session: { cookie: string }): Promise<void> {
  for (const [i, entity] of entityDefinitions.entries()) {
    const related = [...relationFields(entity), ...entity.links].filter((f) => refs.has(`${who}.${f.to}Id`));
    const links = Object.fromEntries(related.map((f) => [f.name, f.many ? [refs.get(`${who}.${f.to}Id`)] : refs.get(`${who}.${f.to}Id`)]));
    const body = { ...sampleRecord(entity.fields, i + entityDefinitions.length, true), ...links };
    await ok(`a second ${entity.slug} record`, t.json('POST', `/api/v1/${entity.slug}`, body, session), () => null);
  }
}

/** Scheduled actions of `who`'s team, due far in the future (the cron route must never run them). */
async function seedActions(t: TestApp, who: string, refs: Map<string, string>, user: SignedUpUser): Promise<void> {
  const later = '2100-01-01T00:00:00.000Z';
  const teamId = refs.get(`${who}.teamId`);
  const postId = refs.get(`${who}.postsId`);
  const actions = [
    { actionType: 'content:publish', payload: { contentId: postId, entityId: postId, entityType: 'posts' }, teamId, scheduledAt: later },
    { actionType: 'webhook:send', payload: { eventType: 'fuzz:seeded', entityType: 'posts', entityId: postId, data: {} }, teamId, scheduledAt: later, recurringInterval: 'daily', lockGroup: `${who}-group` },
  ];
  for (const [i, body] of actions.entries()) {
    refs.set(`${who}.scheduledAction${i}Id`, await ok('scheduled action', t.json('POST', '/api/v1/devtools/scheduled-actions', body, { cookie: user.cookie }), (b) => b.data.id as string));
  }
}

/** Seeds the victim and the fuzzing caller on `target`. */
export async function seedWorld(target: FuzzTarget): Promise<World> {
  const t = asTestApp(target);
  const refs = new Map<string, string>();
  const receiver = await startReceiver();
  const victim = await seedUser(t, 'victim', refs, receiver.url('/victim'));
  // Never used: a request-free key, so any change to its row is someone else's doing.
  const victimKey = await createKey(t, victim, { name: 'victim key', scopes: ['tasks:*', 'media:read'] });
  await seedActions(t, 'victim', refs, victim);
  const attacker = await seedUser(t, 'attacker', refs, receiver.url('/attacker'));
  await seedActions(t, 'attacker', refs, attacker);
  let narrow = await createKey(t, attacker, { name: 'fuzz narrow', scopes: [...narrowKeyScopes] });
  const superadmin = await signUp(t, { email: `superadmin-${randomBytes(3).toString('hex')}@example.com` });
  await t.database.prisma.user.update({ where: { id: superadmin.id }, data: { role: 'superadmin' } });
  let wildcard = await createKey(t, superadmin, { name: 'fuzz *', scopes: ['*'] });
  // A member of the fuzzing caller's team, so the `*` key's requests reach that team's records too.
  await addMember(t, attacker, attacker.activeTeamId, superadmin, 'admin');
  const unknownKey = `sk_test_${randomBytes(30).toString('base64url').slice(0, 40)}`;
  const idRefs = [...refs.keys()].filter((name) => name !== 'victim.email' && name !== 'attacker.email');
  const plans = plansOf(target.config);
  const names = [
    ...entityDefinitions.flatMap((e) => [e.slug, ...e.children.map((c) => c.slug), ...e.fields.map((f) => f.name), ...e.children.flatMap((c) => c.fields.map((f) => f.name))]),
    ...new Set(Object.values(plans).flatMap((plan) => Object.keys(plan.limits))),
  ];
  const victimKeyIds = [victimKey.id, refs.get('victim.apiKeyId')!];

  const secrets = () => [victim.password, victimKey.key, victim.cookie.split('=')[1]!, attacker.password, attacker.cookie.split('=')[1]!, wildcard.key, narrow.key, superadmin.password, superadmin.cookie.split('=')[1]!];
  return {
    refs,
    idRefs,
    names: [...new Set(names)],
    slugs: {
      entity: entityDefinitions.map((e) => e.slug),
      child: [...new Set(entityDefinitions.flatMap((e) => e.children.map((c) => c.slug)))],
      limitSlug: [...new Set(Object.values(plans).flatMap((plan) => Object.keys(plan.limits)))],
    },
    victim: { userId: victim.id, teamId: victim.activeTeamId, keyIds: victimKeyIds },
    receiver,
    secrets,
    refsOf(caller) {
      if (caller !== 'wildcardKey') return refs;
      return new Map([...refs].map(([name, value]) => [name, name.startsWith('victim.') ? (refs.get(`attacker.${name.slice('victim.'.length)}`) ?? value) : value]));
    },
    headersOf(caller, keyHeader): Record<string, string> {
      const key = caller === 'wildcardKey' ? wildcard.key : caller === 'narrowKey' ? narrow.key : caller === 'unknownKey' ? unknownKey : null;
      if (key) return keyHeader === 'authorization' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
      return caller === 'session' ? { cookie: attacker.cookie } : {};
    },
    async heal() {
      const session = await t.json('GET', '/api/auth/session', undefined, { cookie: attacker.cookie });
      if (session.status === 401) {
        const login = await t.json('POST', '/api/auth/login', { email: attacker.email, password: attacker.password });
        if (login.status === 200) attacker.cookie = cookieFrom(login.headers);
      }
      const keys = await t.database.prisma.apiKey.findMany({ where: { id: { in: [wildcard.id, narrow.id] } }, select: { id: true, status: true } });
      const active = (id: string) => keys.some((k) => k.id === id && k.status === 'active');
      if (!active(wildcard.id)) wildcard = await createKey(t, superadmin, { name: 'fuzz *', scopes: ['*'] }).catch(() => wildcard);
      if (!active(narrow.id)) narrow = await createKey(t, attacker, { name: 'fuzz narrow', scopes: [...narrowKeyScopes] }).catch(() => narrow);
    },
    close: () => receiver.close(),
  };
}
