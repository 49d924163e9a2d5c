// GraphQL face of teams. Today: the scope resource API keys may name for team data; the teams issue
// adds the types, queries and mutations.
import { defineScopeResource } from '../../auth/scopes.js';

defineScopeResource('teams', { description: 'Teams, members and invitations of the caller' });
