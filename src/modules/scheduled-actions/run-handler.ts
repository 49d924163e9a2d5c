// Runs one claimed action's handler under its timeout: the handler gets an AbortSignal that fires when
// the time is up, and the attempt fails then with `Handler timeout after <ms>ms` whether or not the
// handler stops (a handler that ignores the signal runs on, but its outcome is no longer waited for).
import type { ActionHandler, HandlerContext, HandlerResult } from './interfaces.js';

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
