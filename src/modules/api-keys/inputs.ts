// API-key inputs, validated at both edges with the same schemas. Scope rules that depend on the
// caller (known entities, role) are checked in the service.
import { z } from 'zod';

export const createApiKeyInput = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  scopes: z.array(z.string().trim().min(1).max(100)).min(1, 'at least one scope is required').max(100),
  expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).nullish(),
});
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;

