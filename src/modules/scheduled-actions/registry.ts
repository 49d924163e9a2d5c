// The handler registry: one handler per action type, each with a zod schema of its payload. The
// registry is the list of action types that exist: scheduling an unknown type is refused, and payloads
// are validated against the type's schema before they are stored. It is filled from the module list
// (src/modules/index.ts) at start-up and sealed when the app is created: the types that exist are
// fixed for the life of the process.
import type { ActionHandler } from './interfaces.js';
import { withCreatorRule, type CreatorRule } from './run-handler.js';

/** The handler as registered (identity for idempotence) and as run (with its creator's rule judged). */
const handlers = new Map<string, { registered: ActionHandler; effective: ActionHandler }>();
let sealed = false;

/**
 * Registers a handler, with the rule its creator must pass to create it through the API and when it
 * runs. Idempotent: registering the same handler again changes nothing. A different handler for a
 * taken type is a bug, and so is any registration once the registry is sealed.
 */
export function registerHandler<P>(handler: ActionHandler<P>, creatorRule?: CreatorRule<P>): void {
  const existing = handlers.get(handler.actionType);
  if (existing?.registered === (handler as ActionHandler)) return;
  if (sealed) throw new Error(`Action handlers are fixed at start-up (src/modules/index.ts): ${handler.actionType} cannot be registered now`);
  if (existing) throw new Error(`Action type ${handler.actionType} already has another handler`);
  handlers.set(handler.actionType, { registered: handler as ActionHandler, effective: withCreatorRule(handler, creatorRule) as ActionHandler });
}

/** Ends registration (the app calls this once its modules are composed). */
export function sealHandlers(): void {
  sealed = true;
}

/** The handler of a type, or undefined for a type nobody registered. */
export function handlerOf(actionType: string): ActionHandler | undefined {
  return handlers.get(actionType)?.effective;
}

/** Every registered action type, sorted (the developer list's `meta.registeredActionTypes`). */
export function registeredActionTypes(): string[] {
  return [...handlers.keys()].sort();
}
