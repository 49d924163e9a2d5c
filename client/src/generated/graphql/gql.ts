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
    "\n      query TaskById($id: ID!) {\n        task(id: $id) {\n          id\n          title\n        }\n      }\n    ": typeof types.TaskByIdDocument,
    "\n      mutation PayOrderFromClient($id: ID!) {\n        payOrder(id: $id) {\n          number\n          status\n          paidAt\n        }\n      }\n    ": typeof types.PayOrderFromClientDocument,
    "\n  query OpenTasks($limit: Int) {\n    tasks(limit: $limit, where: { status: { eq: TODO } }) {\n      total\n      items {\n        id\n        title\n        priority\n      }\n    }\n  }\n": typeof types.OpenTasksDocument,
};
const documents: Documents = {
    "\n      query TaskById($id: ID!) {\n        task(id: $id) {\n          id\n          title\n        }\n      }\n    ": types.TaskByIdDocument,
    "\n      mutation PayOrderFromClient($id: ID!) {\n        payOrder(id: $id) {\n          number\n          status\n          paidAt\n        }\n      }\n    ": types.PayOrderFromClientDocument,
    "\n  query OpenTasks($limit: Int) {\n    tasks(limit: $limit, where: { status: { eq: TODO } }) {\n      total\n      items {\n        id\n        title\n        priority\n      }\n    }\n  }\n": types.OpenTasksDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n      query TaskById($id: ID!) {\n        task(id: $id) {\n          id\n          title\n        }\n      }\n    "): typeof import('./graphql.js').TaskByIdDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n      mutation PayOrderFromClient($id: ID!) {\n        payOrder(id: $id) {\n          number\n          status\n          paidAt\n        }\n      }\n    "): typeof import('./graphql.js').PayOrderFromClientDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OpenTasks($limit: Int) {\n    tasks(limit: $limit, where: { status: { eq: TODO } }) {\n      total\n      items {\n        id\n        title\n        priority\n      }\n    }\n  }\n"): typeof import('./graphql.js').OpenTasksDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
