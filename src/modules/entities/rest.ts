// REST face of entities: the contract's dynamic routes, generic over definitions. Static routes of
// other modules (/api/v1/teams, /api/v1/api-keys…) take precedence over `{entity}`.
import { z } from 'zod';
import {
  EntityChildrenDocument,
  EntityCreateChildDocument,
  EntityCreateDocument,
  EntityDeleteChildDocument,
  EntityDeleteDocument,
  EntityListDocument,
  EntityRecordDocument,
  EntityUpdateChildDocument,
  EntityUpdateDocument,
} from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';

const tags = ['Entities'];
const access = 'authenticated' as const;
const entity = z.object({ entity: z.string().max(100) });
const record = entity.extend({ id: z.string().max(100) });
const child = record.extend({ child: z.string().max(100) });
const childRecord = child.extend({ childId: z.string().max(100) });
const anyParams = z.record(z.string(), z.string());
const body = z.record(z.string(), z.unknown());

type Listed = { data: unknown[]; pagination: Record<string, number> };

export const entityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/{entity}',
    entityOperation: 'list',
    summary: 'LIST records: page, limit, sortBy, sortOrder, fields, distinct, ids, search, from, to, dateField, metas, child, {field}, {field}_min, {field}_max',
    tags,
    access,
    params: entity,
    query: anyParams,
    operation: EntityListDocument,
    variables: ({ params, query }) => ({ entity: params.entity, params: query }),
    data: (r) => (r.entityList as Listed).data,
    extras: (r) => ({ pagination: (r.entityList as Listed).pagination }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/{entity}',
    entityOperation: 'create',
    summary: 'CREATE a record (fields of the entity, optional metas)',
    tags,
    access,
    params: entity,
    body,
    operation: EntityCreateDocument,
    variables: ({ params, body: data }) => ({ entity: params.entity, data }),
    data: (r) => r.entityCreate,
    status: 201,
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/{entity}/{id}',
    entityOperation: 'read',
    summary: 'READ a record (fields, metas, child)',
    tags,
    access,
    params: record,
    query: anyParams,
    operation: EntityRecordDocument,
    variables: ({ params, query }) => ({ entity: params.entity, id: params.id, params: query }),
    data: (r) => r.entityRecord,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/{entity}/{id}',
    entityOperation: 'update',
    summary: 'UPDATE a record partially (metas merge; null removes a key)',
    tags,
    access,
    params: record,
    body,
    operation: EntityUpdateDocument,
    variables: ({ params, body: data }) => ({ entity: params.entity, id: params.id, data }),
    data: (r) => r.entityUpdate,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/{entity}/{id}',
    entityOperation: 'delete',
    summary: 'DELETE a record (soft-deleting entities answer the record with deletedAt)',
    tags,
    access,
    params: record,
    operation: EntityDeleteDocument,
    variables: ({ params }) => ({ entity: params.entity, id: params.id }),
    data: (r) => (r.entityDelete as { data?: unknown }).data,
    extras: (r) => {
      const message = (r.entityDelete as { message?: string }).message;
      return message ? { message } : {};
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/{entity}/{id}/child/{child}',
    entityOperation: 'read',
    summary: "LIST a record's children",
    tags,
    access,
    params: child,
    operation: EntityChildrenDocument,
    variables: ({ params }) => ({ entity: params.entity, id: params.id, child: params.child }),
    data: (r) => r.entityChildren,
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/{entity}/{id}/child/{child}',
    entityOperation: 'update',
    summary: 'CREATE a child record',
    tags,
    access,
    params: child,
    body,
    operation: EntityCreateChildDocument,
    variables: ({ params, body: data }) => ({ entity: params.entity, id: params.id, child: params.child, data }),
    data: (r) => r.entityCreateChild,
    status: 201,
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/{entity}/{id}/child/{child}/{childId}',
    entityOperation: 'update',
    summary: 'UPDATE a child record',
    tags,
    access,
    params: childRecord,
    body,
    operation: EntityUpdateChildDocument,
    variables: ({ params, body: data }) => ({ entity: params.entity, id: params.id, child: params.child, childId: params.childId, data }),
    data: (r) => r.entityUpdateChild,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/{entity}/{id}/child/{child}/{childId}',
    entityOperation: 'update',
    summary: 'DELETE a child record',
    tags,
    access,
    params: childRecord,
    operation: EntityDeleteChildDocument,
    variables: ({ params }) => ({ entity: params.entity, id: params.id, child: params.child, childId: params.childId }),
    data: () => undefined,
    extras: () => ({ message: 'Child record deleted' }),
  }),
];
