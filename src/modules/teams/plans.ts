// Plans are configuration: each has limits (null: unlimited) and the API-key rate tier its teams get.
// PLANS_JSON merges over these defaults, e.g. {"free":{"limits":{"team_members":10}}}.
import { z } from 'zod';

export interface Plan {
  slug: string;
  name: string;
  /** Limit slug → maximum (null: unlimited). */
  limits: Record<string, number | null>;
  /** Key of RATE_LIMIT_TIERS for API keys of this plan's teams. */
  rateLimitTier: string;
}

export const defaultPlans: Record<string, Plan> = {
  // api_keys: the usable keys of a team's members together (each key counts in every team of its
  // owner); generous enough for a few keys per member of a full team (one per integration, environment).
  free: { slug: 'free', name: 'Free', limits: { team_members: 5, api_keys: 25, tasks: 100 }, rateLimitTier: 'free' },
  pro: { slug: 'pro', name: 'Pro', limits: { team_members: 50, api_keys: 500, tasks: 10_000 }, rateLimitTier: 'pro' },
  enterprise: { slug: 'enterprise', name: 'Enterprise', limits: { team_members: null, api_keys: null, tasks: null }, rateLimitTier: 'enterprise' },
};

const override = z.record(
  z.string().regex(/^[a-z][a-z0-9_-]*$/),
  z.strictObject({
    name: z.string().min(1).max(100).optional(),
    limits: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.number().int().min(0).nullable()).optional(),
    rateLimitTier: z.string().min(1).optional(),
  }),
);

/** The plan table: defaults merged with PLANS_JSON. Throws at start-up on invalid JSON or shapes. */
export function loadPlans(plansJson: string | undefined): Record<string, Plan> {
  if (!plansJson) return defaultPlans;
  let parsed: unknown;
  try {
    parsed = JSON.parse(plansJson);
  } catch {
    throw new Error('Invalid configuration: PLANS_JSON is not valid JSON');
  }
  const result = override.safeParse(parsed);
  if (!result.success) throw new Error(`Invalid configuration: PLANS_JSON: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const plans: Record<string, Plan> = structuredClone(defaultPlans);
  for (const [slug, changes] of Object.entries(result.data)) {
    const base = planOf(plans, slug) ?? { slug, name: slug, limits: {}, rateLimitTier: slug };
    plans[slug] = { ...base, ...(changes.name ? { name: changes.name } : {}), ...(changes.rateLimitTier ? { rateLimitTier: changes.rateLimitTier } : {}), limits: { ...base.limits, ...changes.limits } };
  }
  return plans;
}

/** The plan named `slug` (a subscription's, a request's), never an inherited member of the table. */
export function planOf(plans: Record<string, Plan>, slug: string): Plan | undefined {
  return Object.hasOwn(plans, slug) ? plans[slug] : undefined;
}

let cached: { json: string | undefined; plans: Record<string, Plan> } | undefined;

/** The plan table for a configuration (parsed once). */
export function plansOf(config: { teams: { plansJson: string | undefined } }): Record<string, Plan> {
  const json = config.teams.plansJson;
  const current = cached && cached.json === json ? cached : (cached = { json, plans: loadPlans(json) });
  return current.plans;
}
