// Seed builders for API keys: mint one through the front door with a user's session.
import type { SignedUpUser } from './accounts.js';
import type { TestApp } from './test-app.js';

export interface MintedKey {
  id: string;
  key: string;
  keyPrefix: string;
}

export async function createKey(t: TestApp, user: SignedUpUser, body: Record<string, unknown> = {}): Promise<MintedKey> {
  const res = await t.json('POST', '/api/v1/api-keys', { name: 'test key', scopes: ['teams:read'], ...body }, { cookie: user.cookie });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
