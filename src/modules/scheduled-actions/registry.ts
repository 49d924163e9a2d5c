// The handler registry: one handler per action type, each with a zod schema of its payload. The
// registry is the list of action types that exist: scheduling an unknown type is refused, and payloads
// are validated against the type's schema before they are stored.
import type { ActionHandler } from './interfaces.js';

const handlers = new Map<string, ActionHandler>();

/**
 * Registers a handler. Idempotent: registering the same handler again changes nothing (each batch
 * re-registers the built-in ones after a restart). A different handler for a taken type is a bug.
 */
export function registerHandler<P>(handler: ActionHandler<P>): void {
  const existing = handlers.get(handler.actionType);
  if (existing === (handler as ActionHandler)) return;
  if (existing) throw new Error(`Action type ${handler.actionType} already has another handler`);
  handlers.set(handler.actionType, handler as ActionHandler);
}

/** The handler of a type, or undefined for a type nobody registered. */
export function handlerOf(actionType: string): ActionHandler | undefined {
  return handlers.get(actionType);
}

/** Every registered action type, sorted (the developer list's `meta.registeredActionTypes`). */
export function registeredActionTypes(): string[] {
  return [...handlers.keys()].sort();
}
