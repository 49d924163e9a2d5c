// Accounts: sign-up, sessions and profiles; the `social:refresh-tokens` action (connected accounts).
import { defineAction, defineModule } from '../module-description.js';
import { socialRefreshTokens } from './refresh-tokens-action.js';
import { providerSignInRoutes } from './provider-routes.js';
import { accountRoutes } from './rest.js';
import { registerAccountsSchema } from './schema.js';

export const accountsModule = defineModule({
  name: 'accounts',
  registerSchema: registerAccountsSchema,
  actions: [defineAction({ handler: socialRefreshTokens })],
  routes: accountRoutes,
  httpRoutes: providerSignInRoutes,
});
