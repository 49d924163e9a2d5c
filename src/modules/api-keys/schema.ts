// GraphQL face of API keys: `apiKeys`, `apiKey(id)` (with usage and audit), `createApiKey`,
// `revokeApiKey`. Managing keys takes a browser session: a key can neither mint nor manage keys.
import type { Builder } from '../../graphql/builder.js';
import { parseInput } from '../../shared/validation.js';
import { createApiKeyInput } from './inputs.js';
import * as keys from './service.js';
import type { ApiKeyDetail, ApiKeyView, AuditEntry, CreatedApiKey } from './service.js';

/** Registers the module's GraphQL types and fields on `b` (its module description's registerSchema). */
export function registerApiKeysSchema(b: Builder): void {
  const AuditEntryRef = b.objectRef<AuditEntry>('ApiKeyAuditEntry').implement({
    description: 'Something that happened to a key: created, revoked, expired, auth_failed, rate_limited.',
    fields: (t) => ({
      id: t.exposeID('id'),
      keyId: t.exposeID('keyId'),
      action: t.exposeString('action'),
      reason: t.exposeString('reason', { nullable: true }),
      ipAddress: t.exposeString('ipAddress', { nullable: true }),
      userAgent: t.exposeString('userAgent', { nullable: true }),
      timestamp: t.expose('timestamp', { type: 'DateTime' }),
    }),
  });

  const ApiKeyRef = b.objectRef<ApiKeyView & Partial<ApiKeyDetail>>('ApiKey').implement({
    description: 'A scoped machine credential. The full key is shown once, when it is created.',
    fields: (t) => ({
      id: t.exposeID('id'),
      keyPrefix: t.exposeString('keyPrefix', { description: 'The first 12 characters of the key.' }),
      name: t.exposeString('name'),
      scopes: t.exposeStringList('scopes'),
      status: t.exposeString('status', { description: 'active, inactive (revoked) or expired.' }),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      totalRequests: t.int({ resolve: async (key, _args, ctx) => key.totalRequests ?? (await keys.getKey(ctx, key.id)).totalRequests }),
      requestsLast24h: t.int({ resolve: async (key, _args, ctx) => key.requestsLast24h ?? (await keys.getKey(ctx, key.id)).requestsLast24h }),
      audit: t.field({
        type: [AuditEntryRef],
        description: 'Newest first.',
        args: { limit: t.arg.int({ defaultValue: 100 }) },
        resolve: (key, { limit }, ctx) => keys.keyAudit(ctx, key.id, limit ?? 100),
      }),
    }),
  });

  const CreatedApiKeyRef = b.objectRef<CreatedApiKey>('CreatedApiKey').implement({
    description: 'A new key, with the full secret: store it now, it is never shown again.',
    fields: (t) => ({
      id: t.exposeID('id'),
      keyPrefix: t.exposeString('keyPrefix'),
      name: t.exposeString('name'),
      scopes: t.exposeStringList('scopes'),
      status: t.exposeString('status'),
      expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      key: t.exposeString('key'),
    }),
  });

  const CreateApiKeyInput = b.inputType('CreateApiKeyInput', {
    fields: (t) => ({
      name: t.string({ required: true }),
      scopes: t.stringList({ required: true }),
      expiresAt: t.string({ description: 'ISO 8601 date-time in the future.' }),
    }),
  });

  b.queryFields((t) => ({
    apiKeys: t.field({
      type: [ApiKeyRef],
      description: "The caller's keys, newest first.",
      authScopes: { session: true },
      resolve: (_root, _args, ctx) => keys.listKeys(ctx),
    }),
    apiKey: t.field({
      type: ApiKeyRef,
      description: 'One of the caller’s keys, with usage.',
      authScopes: { session: true },
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => keys.getKey(ctx, String(id)),
    }),
  }));

  b.mutationFields((t) => ({
    createApiKey: t.field({
      type: CreatedApiKeyRef,
      description: 'Mints a key for the signed-in user (a browser session is required).',
      authScopes: { session: true },
      args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
      resolve: (_root, { input }, ctx) => keys.createKey(ctx, parseInput(createApiKeyInput, input)),
    }),
    revokeApiKey: t.field({
      type: ApiKeyRef,
      description: 'Revokes a key for good: refused from the next request on, on every instance.',
      authScopes: { session: true },
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, ctx) => keys.revokeKey(ctx, String(id)),
    }),
  }));
}
