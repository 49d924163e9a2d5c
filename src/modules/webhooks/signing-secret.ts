// An endpoint's signing secret: 32 random bytes in the Standard Webhooks form `whsec_<base64>`, made
// by the server, shown once (creation, rotation) and stored sealed under WEBHOOKS_SECRET_KEY
// (shared/sealing.ts), so a copy of the database alone cannot forge deliveries.
import { randomBytes } from 'node:crypto';
import { seal, unseal } from '../../shared/sealing.js';

const prefix = 'whsec_';

/** A new secret, `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}

/** The stored form of a secret (shared/sealing.ts). */
export function sealSecret(secret: string, key: Buffer | null): string {
  return seal(secret, key);
}

/** The secret of a stored form; throws when it was sealed under another key (or none is configured). */
export function openSecret(stored: string, key: Buffer | null): string {
  return unseal(stored, key, { what: 'The signing secret', setting: 'WEBHOOKS_SECRET_KEY' });
}
