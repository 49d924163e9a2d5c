// CLI commands about API keys: `apikey create` (for an existing user, under the API's rules: the user's
// role bounds the scopes; the key is printed once) and `apikey revoke` (as the API revokes: inactive for
// good, audited; running servers are told over Redis when REDIS_URL is set, evictions.ts). Both act as
// the key's owner through the api-keys module's service (operator-scope.ts).
import { parseArgs } from 'node:util';
import { systemDb } from '../db/request-db.js';
import { createApiKeyInput } from '../modules/api-keys/inputs.js';
import { createKey, revokeKey } from '../modules/api-keys/service.js';
import { AppError } from '../shared/errors.js';
import { isUuid, parseInput } from '../shared/validation.js';
import { evictionNote, withEvictions } from './evictions.js';
import { withDatabase, type Cli } from './open.js';
import { asUser } from './operator-scope.js';
import { noEvictions } from '../auth/user-scope.js';

const json = { type: 'boolean', default: false } as const;

/** `apikey create --email E --name N --scopes "a:read,b:*" [--expires-at ISO]`: the key is printed once. */
export async function apikeyCreate(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, 'expires-at': { type: 'string' }, json } });
  const email = values.email;
  if (!email) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --email is required');
  const input = parseInput(createApiKeyInput, {
    name: values.name,
    scopes: values.scopes?.split(',').map((s) => s.trim()).filter(Boolean),
    expiresAt: values['expires-at'],
  }, 'Invalid arguments');
  // A new key is in no cache: nothing to evict.
  const created = await withDatabase(cli, 'create keys', (database, config) => asUser(database, config, { email }, noEvictions, (scope) => createKey(scope, input)));
  const out = { id: created.id, key: created.key, keyPrefix: created.keyPrefix, name: created.name, scopes: created.scopes, status: created.status, expiresAt: created.expiresAt };
  cli.out(values.json ? JSON.stringify(out) : `Created key ${out.keyPrefix}… for ${email.trim().toLowerCase()} (id ${out.id}). Store it now, it is not shown again:\n${out.key}`);
  return 0;
}

/** `apikey revoke --id ID | --prefix P`: refused by every running server from the next request (with Redis; else see evictions.ts). */
export async function apikeyRevoke(args: string[], cli: Cli): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { id: { type: 'string' }, prefix: { type: 'string' }, json } });
  const { id, prefix } = values;
  if (Boolean(id) === Boolean(prefix)) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: give --id or --prefix (apikey list shows both)');
  if (id && !isUuid(id)) throw new AppError('VALIDATION_ERROR', 'Invalid arguments: --id must be a key id (apikey list shows them)');
  const { out, note } = await withDatabase(cli, 'revoke keys', async (database, config) => {
    const matches = await systemDb(database, 'cli: key to revoke').prisma.apiKey.findMany({
      where: id ? { id } : { keyPrefix: prefix },
      take: 2,
      select: { id: true, keyPrefix: true, name: true, status: true, userId: true, user: { select: { email: true } } },
    });
    const key = matches[0];
    if (!key) throw new AppError('NOT_FOUND', id ? `No API key with id ${id}` : `No API key with prefix ${prefix}`);
    if (matches.length > 1) throw new AppError('CONFLICT', `More than one API key has the prefix ${prefix}: revoke it by --id (apikey list shows them)`);
    return withEvictions(config, async (evictions) => {
      const revoked = await asUser(database, config, { id: key.userId }, evictions, (scope) => revokeKey(scope, key.id));
      const out = { id: revoked.id, keyPrefix: revoked.keyPrefix, name: revoked.name, owner: key.user.email, status: revoked.status, wasActive: key.status === 'active', cacheEviction: evictions.outcome() };
      return { out, note: evictionNote(evictions.outcome(), config) };
    });
  });
  if (values.json) cli.out(JSON.stringify(out));
  else cli.out(`${out.wasActive ? 'Revoked' : 'Already inactive'}: key ${out.keyPrefix}… (${out.name}) of ${out.owner}; ${note}`);
  return 0;
}
