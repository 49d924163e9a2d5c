// Plan limits of a team: how many of a limit (`team_members`, `api_keys`, an entity's records) the team
// has, against its plan's maximum. The counters are those the app's modules declare (the teams' own
// two here, named in teams/module.ts), made into one map per app by its composition. A create's check
// is bounded by the plan, not by the table: members and keys count up to the plan's maximum before
// adding one (assertWithinLimit); an entity's create reads, after its INSERT, the count that INSERT's
// statement trigger renewed (assertAddedWithinLimit).
import type { Tx } from '../../db/request-db.js';
import { AppError } from '../../shared/errors.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { serviceKey } from '../../shared/services.js';
import { planOf, plansOf } from './plans.js';
import * as repo from './repository.js';

export interface Usage {
  limitSlug: string;
  current: number;
  max: number | null;
  remaining: number | null;
  allowed: boolean;
  percentUsed: number | null;
}

/** Counts a limit's items in a team. With `atMost` (a create's limit check), it may stop there. */
export type Counter = (scope: RequestScope, tx: Tx, teamId: string, atMost?: number) => Promise<number>;

/**
 * The counters of an app's plan limits, by limit slug. A Map: the limit slug comes from the request
 * (`usage/constructor` found Object's constructor in a plain object).
 */
export type UsageCounters = ReadonlyMap<string, Counter>;

export const usageCountersKey = serviceKey<UsageCounters>('usage counters');

/** The declared counters by limit slug; two counters of one limit are a bug of the module list (start-up fails). */
/** Makes a plan limit (`tasks`) measurable: how many a team has now (declared in a module's description). */
export interface UsageCounterDeclaration {
  limitSlug: string;
  count: Counter;
}

export function usageCountersOf(declared: readonly UsageCounterDeclaration[]): UsageCounters {
  const counters = new Map(declared.map(({ limitSlug, count }) => [limitSlug, count]));
  if (counters.size < declared.length) throw new Error(`Usage counters declared twice: ${declared.filter((c, i) => declared.findIndex((o) => o.limitSlug === c.limitSlug) !== i).map((c) => c.limitSlug).join(', ')}`);
  return counters;
}

/** The teams' own counters (teams/module.ts declares them). */
export const teamCounters: readonly UsageCounterDeclaration[] = [
  { limitSlug: 'team_members', count: (_scope, tx, teamId) => repo.countMembers(tx, teamId) },
  // Keys belong to users: a team's count is its members' usable keys (RLS shows a user only their
  // own keys, so a database function counts them, for the caller's own teams only). Minting a key
  // checks every team of its owner (api-keys/service.ts): a key acts in any of them.
  { limitSlug: 'api_keys', count: (_scope, tx, teamId, atMost) => repo.countMemberApiKeys(tx, teamId, atMost) },
];

function counterOf(scope: RequestScope, limitSlug: string): Counter {
  const count = scope.services.get(usageCountersKey).get(limitSlug);
  if (!count) throw new AppError('NOT_FOUND', `Unknown limit "${limitSlug}"`);
  return count;
}

/** The team's plan's maximum of `limitSlug` (null: unlimited). */
async function planMax(scope: RequestScope, tx: Tx, teamId: string, limitSlug: string): Promise<number | null> {
  const sub = await repo.findSubscription(tx, teamId);
  const plan = planOf(plansOf(scope.config), sub?.plan ?? 'free');
  return plan && Object.hasOwn(plan.limits, limitSlug) ? (plan.limits[limitSlug] ?? null) : null;
}

export async function measure(scope: RequestScope, tx: Tx, teamId: string, limitSlug: string): Promise<Usage> {
  const count = counterOf(scope, limitSlug);
  const max = await planMax(scope, tx, teamId, limitSlug);
  const current = await count(scope, tx, teamId);
  const remaining = max === null ? null : Math.max(0, max - current);
  return { limitSlug, current, max, remaining, allowed: max === null || current + 1 <= max, percentUsed: max === null ? null : max === 0 ? 100 : Math.round((current / max) * 1000) / 10 };
}

/**
 * Refuses (403 PLAN_LIMIT_REACHED) `adding` more of `limitSlug` beyond the plan's maximum. Unlimited,
 * nothing is counted; limited, counting stops at max + 1, which decides as a full count would: a
 * create's cost is bounded by the plan, not by the team's table (a refusal reports the full count).
 */
export async function assertWithinLimit(scope: RequestScope, tx: Tx, teamId: string, limitSlug: string, adding: number): Promise<void> {
  const count = counterOf(scope, limitSlug);
  const max = await planMax(scope, tx, teamId, limitSlug);
  if (max === null) return;
  const current = await count(scope, tx, teamId, max + 1);
  if (current + Math.max(adding, 1) <= max) return;
  refuse(limitSlug, max, current > max ? await count(scope, tx, teamId) : current, teamId);
}

/**
 * After a write that added `added` of `limitSlug` (an entity's create): refuses (403), and so rolls the
 * write back, when the team now holds more than its plan allows. An entity's count is the one the
 * write's own statement trigger renewed on the team's record_versions row, whose lock that statement
 * holds until commit: creates racing at the limit are counted one after the other, each seeing those
 * committed before it, and the check adds no lock and no wait of its own (a count taken before the
 * INSERT had to lock the row a round trip earlier). The refusal reports the count without this write.
 */
export async function assertAddedWithinLimit(scope: RequestScope, tx: Tx, teamId: string, limitSlug: string, added: number): Promise<void> {
  const count = scope.services.get(usageCountersKey).get(limitSlug);
  if (!count) return;
  const max = await planMax(scope, tx, teamId, limitSlug);
  if (max === null) return;
  const current = await count(scope, tx, teamId);
  if (current <= max) return;
  refuse(limitSlug, max, current - added, teamId);
}

function refuse(limitSlug: string, max: number, current: number, teamId: string): never {
  const counted = limitSlug === 'team_members' ? ' (pending invitations count)' : '';
  throw new AppError('PLAN_LIMIT_REACHED', `The team's plan allows ${max} ${limitSlug.replace(/_/g, ' ')}${counted}`, { limitSlug, max, current, teamId });
}
