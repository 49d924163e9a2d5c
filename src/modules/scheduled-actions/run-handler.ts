// Runs one claimed action's handler under its timeout: the handler gets an AbortSignal that fires when
// the time is up, and the attempt fails then with `Handler timeout after <ms>ms` whether or not the
// handler stops (a handler that ignores the signal runs on, but its outcome is no longer waited for).
// It is also the one place that checks the scope an action type requires of its creator (declared
// with the type in its module's description, src/modules/<domain>/module.ts).
import { hasScope } from '../../auth/scopes.js';
import { forbidden } from '../../shared/errors.js';
import type { ActionHandler, HandlerContext, HandlerResult } from './interfaces.js';

/** The scopes of which an action's creator must hold one to create it through the API (none: no scope of its own). */
export type CreatorScopes<P> = (payload: P) => readonly string[];

/**
 * The handler with its creation check extended by the creator-scope rule: first the type's own
 * refusal (its 400s and team rules), then a key without one of the required scopes gets the
 * contract's 403. When the action runs its creator acts with their own rights (roles decide).
 */
export function withCreatorScopes<P>(handler: ActionHandler<P>, creatorScopes: CreatorScopes<P> | undefined): ActionHandler<P> {
  if (!creatorScopes) return handler;
  return {
    ...handler,
    refuseCreation(payload, creator, teamId) {
      const own = handler.refuseCreation?.(payload, creator, teamId);
      if (own) return own;
      const needed = creatorScopes(payload);
      if (needed.length === 0 || needed.some((scope) => hasScope(creator.scopes, scope))) return null;
      return forbidden(`Insufficient permissions - ${needed[0]} scope required`);
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
