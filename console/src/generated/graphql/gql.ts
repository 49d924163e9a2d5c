/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n": typeof types.TeamsDocument,
    "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n": typeof types.SwitchTeamDocument,
};
const documents: Documents = {
    "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n": types.TeamsDocument,
    "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n": types.SwitchTeamDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Teams {\n    teams(limit: 100) {\n      items {\n        id\n        name\n        slug\n        userRole\n        memberCount\n      }\n    }\n  }\n"): typeof import('./graphql.js').TeamsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SwitchTeam($teamId: ID!) {\n    switchTeam(teamId: $teamId) {\n      activeTeamId\n    }\n  }\n"): typeof import('./graphql.js').SwitchTeamDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
