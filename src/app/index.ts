// The app's own modules: this folder is yours. Each module is described as the platform's are
// (src/modules/module-description.ts: GraphQL fields, REST routes, actions, scopes) and composed
// after them, in this order (src/module-list.ts). docs/api/custom-operations.md.
import type { ModuleDescription } from '../modules/module-description.js';
import { ordersModule } from './orders/module.js';

export const appModules: readonly ModuleDescription[] = [ordersModule];
