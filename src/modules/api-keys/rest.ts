// REST face of API keys (/api/v1/api-keys). Contract: errors here carry no `code`.
import { z } from 'zod';
import { ApiKeyAuditDocument, CreateApiKeyDocument, GetApiKeyDocument, ListApiKeysDocument, RevokeApiKeyDocument } from '../../generated/operations.js';
import { defineRoute } from '../../rest/route.js';
import { createApiKeyInput } from './inputs.js';

const idParams = z.object({ id: z.string().max(100) });
const key = z.object({
  id: z.string(),
  keyPrefix: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'inactive', 'expired']),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
});
const common = { tags: ['API keys'], access: 'session' as const, errorCodes: false };

export const apiKeyRoutes = [
  defineRoute({
    ...common,
    method: 'POST',
    path: '/api/v1/api-keys',
    summary: 'Create a key (session only); the full key is in this answer and never again',
    body: createApiKeyInput,
    operation: CreateApiKeyDocument,
    variables: ({ body }) => ({ input: { ...body, expiresAt: body.expiresAt ?? null } }),
    data: (r) => r.createApiKey,
    status: 201,
    response: key.omit({ lastUsedAt: true, createdAt: true }).extend({ key: z.string() }),
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/api/v1/api-keys',
    summary: "The caller's keys, newest first (never the key or its hash)",
    operation: ListApiKeysDocument,
    variables: () => ({}),
    data: (r) => r.apiKeys,
    response: z.array(key),
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/api/v1/api-keys/{id}',
    summary: 'One key with its usage (totalRequests, requestsLast24h, lastUsedAt)',
    params: idParams,
    operation: GetApiKeyDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.apiKey,
    response: key.extend({ totalRequests: z.number(), requestsLast24h: z.number() }),
  }),
  defineRoute({
    ...common,
    method: 'DELETE',
    path: '/api/v1/api-keys/{id}',
    summary: 'Revoke a key: inactive for good, refused from the next request on',
    params: idParams,
    operation: RevokeApiKeyDocument,
    variables: ({ params }) => ({ id: params.id }),
    data: (r) => r.revokeApiKey,
    extras: () => ({ message: 'API key revoked' }),
    response: z.object({ id: z.string(), status: z.string() }),
  }),
  defineRoute({
    ...common,
    method: 'GET',
    path: '/api/v1/api-keys/{id}/audit',
    summary: "The key's audit records, newest first",
    params: idParams,
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
    operation: ApiKeyAuditDocument,
    variables: ({ params, query }) => ({ id: params.id, limit: query.limit }),
    data: (r) => r.apiKey.audit,
    response: z.array(z.object({ id: z.string(), keyId: z.string(), action: z.string(), reason: z.string().nullable(), ipAddress: z.string().nullable(), userAgent: z.string().nullable(), timestamp: z.string() })),
  }),
];
