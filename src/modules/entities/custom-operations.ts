// What an app's own modules (src/app/) use to add operations over entity records, declared as the
// platform declares its own: a GraphQL field typed with the entity's record type and guarded by the
// rule of one of its operations (the one rule: GraphQL judges it on the field, the REST router before
// it reads input), and a REST route declared over that field's GraphQL operation (its document written
// from the definition), answering the record in REST's form, typed in OpenAPI. Writes go through the entity's write path: its hooks,
// validation, events and webhooks run as for any update. docs/api/custom-operations.md.
import { z } from 'zod';
import type { EntityDefinition, Operation } from '../../config/entity-definition.js';
import { entityNamed } from '../../config/entities/index.js';
import type { Rule } from '../../auth/rules.js';
import type { Builder } from '../../graphql/builder.js';
import { defineRoute, type HttpMethod, type RestRoute } from '../../rest/route.js';
import type { RequestScope } from '../../auth/request-scope.js';
import { recordActionOpenApi } from './openapi.js';
import { recordMapper } from './rest-answers.js';
import { recordOperationDocument } from './rest-documents.js';
import { operationRule } from './rules.js';
import { entityFace } from './schema.js';
import * as records from './service.js';
import * as writes from './writes.js';

type Values = Record<string, unknown>;
const recordId = z.object({ id: z.string().max(100) });

/** The configured entity `slug` (its sanitized definition); throws at start-up when there is none. */
export function entity(slug: string): EntityDefinition {
  const d = entityNamed(slug);
  if (!d) throw new Error(`No entity "${slug}" is configured (src/config/entities/)`);
  return d;
}

/** The GraphQL object type of `d`'s records (`Order`) on builder `b` (registerSchema's), for a field's `type`. */
export const recordType = (b: Builder, d: EntityDefinition) => entityFace(b, d).types.record as never;

/** The rule of `d`'s operation `op` (its definition's permissions), for a field's `authScopes`. */
export const ruleOf = (d: EntityDefinition, op: Operation): Rule => operationRule(d, op);

/** Reads, creates, updates and deletes records as the caller, through the entity's write path (hooks included). */
export const readRecord = (scope: RequestScope, d: EntityDefinition, id: string): Promise<Values> => records.read(scope, d, id);
export const createRecord = (scope: RequestScope, d: EntityDefinition, data: Values): Promise<Values> => writes.create(scope, d, data);
export const updateRecord = (scope: RequestScope, d: EntityDefinition, id: string, data: Values): Promise<Values> => writes.update(scope, d, id, data);
export const removeRecord = (scope: RequestScope, d: EntityDefinition, id: string) => writes.remove(scope, d, id);

/**
 * A REST route on one record (`POST /api/v1/orders/{id}/pay`) over the GraphQL field `field(id: ID!)`
 * that answers it: the route's document is written from the definition (every field of the record,
 * as a write answers it), so a field added to the definition is in its answer without a document to edit.
 */
export interface RecordRoute {
  method: HttpMethod;
  path: string;
  /** The GraphQL field the route runs, and whether it is a query or a mutation. */
  field: string;
  kind: 'query' | 'mutation';
  summary: string;
  description: string;
  /** The operation of `d` whose rule the GraphQL field declares (for the documentation; the router derives the enforced scopes from the field). */
  rule: Operation;
}

export function recordRoute(d: EntityDefinition, route: RecordRoute): RestRoute {
  if (!route.path.includes('{id}')) throw new Error(`${route.path}: a record route names the record as {id}`);
  const map = recordMapper(d);
  const scope = d.permissions[route.rule].join(' or ') || 'none grants it';
  return {
    ...defineRoute({
      method: route.method,
      path: route.path,
      summary: route.summary,
      tags: [d.pluralName],
      access: 'authenticated',
      params: recordId,
      operation: recordOperationDocument(d, route.kind, route.field),
      variables: ({ params }) => ({ id: params.id }),
      data: (r) => map(r.result),
      openapi: recordActionOpenApi(d, { operationId: route.field, summary: route.summary, description: route.description, scope }),
    }),
    // The resolvers give values in REST's form (a select's stored string), as the entity's own routes.
    storedValues: true,
  };
}
