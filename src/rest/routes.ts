// Every module's JSON route declarations, in one table: read from the module list's composition
// (src/modules/composition.ts), where each module's description names its routes.
import { composition } from '../modules/composition.js';
import type { RestRoute } from './route.js';

export const restRoutes: readonly RestRoute[] = composition.routes;
