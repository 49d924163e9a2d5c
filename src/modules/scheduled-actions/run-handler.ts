// Runs one claimed action's handler under its timeout: the handler gets an AbortSignal that fires when
// the time is up, and the attempt fails then with `Handler timeout after <ms>ms` whether or not the
// handler stops (a handler that ignores the signal runs on, but its outcome is no longer waited for).
// It is also the one place that judges the rule an action type requires of its creator (declared with
// the type in its module's description, src/modules/<domain>/module.ts): with the one evaluator
// (auth/rules.ts), when the action is created (the caller: a key's scopes) and again when it runs
// (the creator as they stand then: their role; an operation the definition no longer grants anyone).
import { refusalError, refusalMessage, ruleFailure, type Principal, type Rule } from '../../auth/rules.js';
import type { CreatorStanding } from './creator.js';
import type { ActionHandler, HandlerContext, HandlerResult } from './interfaces.js';

/** The rule an action's creator must pass, per payload (content:publish: the entity's update rule). */
export type CreatorRule<P> = (payload: P) => Rule;

/** The creator as a rule sees them: at creation the caller (`via` their credential), when it runs their standing alone. */
const principalOf = (creator: CreatorStanding, via?: CreatorStanding['via']): Principal => ({ kind: 'user', via, role: creator.role, scopes: creator.scopes });

/** A run the creator's rule refuses: the attempt fails with this message (and is retried, as any failure). */
class NotPermitted extends Error {}

/**
 * The handler with its creator's rule judged: at creation after the type's own refusal (its 400s and
 * team rules), the contract's 403 naming what is missing; when it runs, before the handler does.
 */
export function withCreatorRule<P>(handler: ActionHandler<P>, creatorRule: CreatorRule<P> | undefined): ActionHandler<P> {
  if (!creatorRule) return handler;
  return {
    ...handler,
    refuseCreation(payload, creator, teamId) {
      const own = handler.refuseCreation?.(payload, creator, teamId);
      if (own) return own;
      const principal = principalOf(creator, creator.via);
      const failure = ruleFailure(creatorRule(payload), principal);
      return failure && refusalError(failure, principal);
    },
    async run(payload, ctx) {
      const failure = ctx.creator ? ruleFailure(creatorRule(payload), principalOf(ctx.creator)) : null;
      if (failure) throw new NotPermitted(`Not permitted: the action's creator (user ${ctx.creator!.userId}) no longer passes its rule: ${refusalMessage(failure) ?? 'Forbidden'}`);
      return handler.run(payload, ctx);
    },
  };
}

export type Outcome = { ok: true; result: Record<string, unknown> | null } | { ok: false; error: string };

/** Error messages are kept on the row: bounded. */
const maxMessage = 2000;

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text || 'Handler failed').slice(0, maxMessage);
}

/** Parses the stored payload with the handler's schema and runs it, at most `timeoutMs`. Never throws. */
export async function runHandler(handler: ActionHandler | undefined, actionType: string, payload: unknown, ctx: Omit<HandlerContext, 'signal'>, timeoutMs: number): Promise<Outcome> {
  if (!handler) return { ok: false, error: `No handler is registered for action type ${actionType}` };
  const parsed = handler.payload.safeParse(payload);
  if (!parsed.success) return { ok: false, error: messageOf(`Invalid payload: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`) };
  const controller = new AbortController();
  const timeout = new Error(`Handler timeout after ${timeoutMs}ms`);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(timeout);
      controller.abort(timeout);
    }, timeoutMs);
  });
  try {
    const result: HandlerResult = await Promise.race([handler.run(parsed.data, { ...ctx, signal: controller.signal }), timedOut]);
    // A handler that returns as soon as it is aborted still ran out of time.
    if (controller.signal.aborted) return { ok: false, error: timeout.message };
    return { ok: true, result: result && typeof result === 'object' ? result : null };
  } catch (error) {
    return { ok: false, error: controller.signal.aborted ? timeout.message : messageOf(error) };
  } finally {
    clearTimeout(timer);
  }
}
