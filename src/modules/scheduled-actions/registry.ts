// The action types of an app: one handler per type, each with a zod schema of its payload, from the
// actions its modules declare (each with the rule its creator must pass). They are the list of action
// types that exist: scheduling an unknown type is refused, and payloads are validated against the
// type's schema before they are stored. The app's composition makes this once (modules/composition.ts);
// it does not change while the app runs.
import { serviceKey } from '../../shared/services.js';
import type { ActionHandler } from './interfaces.js';
import { withCreatorRule, type CreatorRule } from './run-handler.js';

export interface ActionHandlers {
  /** The handler of a type (as run: with its creator's rule judged), or undefined for a type no module declares. */
  of(actionType: string): ActionHandler | undefined;
  /** Every action type, sorted (the developer list's `meta.registeredActionTypes`). */
  types(): string[];
}

export const actionHandlersKey = serviceKey<ActionHandlers>('action handlers');

/** The handlers of the declared actions; two handlers for one type are a bug of the module list. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each action has its own payload type
export function actionHandlersOf(declared: readonly { handler: ActionHandler<any>; creatorRule?: CreatorRule<any> }[]): ActionHandlers {
  const handlers = new Map<string, ActionHandler>();
  for (const { handler, creatorRule } of declared) {
    if (handlers.has(handler.actionType)) throw new Error(`Action type ${handler.actionType} is declared by two modules`);
    handlers.set(handler.actionType, withCreatorRule(handler, creatorRule) as ActionHandler);
  }
  const types = [...handlers.keys()].sort();
  return { of: (actionType) => handlers.get(actionType), types: () => [...types] };
}
