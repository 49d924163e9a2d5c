// An endpoint's signing secret: 32 random bytes in the Standard Webhooks form `whsec_<base64>`, made
// by the server, shown once (creation, rotation) and stored *sealed*: AES-256-GCM under
// WEBHOOKS_SECRET_KEY (`v1:<iv>:<tag>:<ciphertext>`, base64), so a copy of the database alone cannot
// forge deliveries. Without the key a secret is stored as `plain:<secret>` (development); sealed and
// plain values both open, so setting the key later seals new and rotated secrets without a migration.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const prefix = 'whsec_';

/** A new secret, `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${prefix}${randomBytes(32).toString('base64')}`;
}

/** The stored form of a secret. */
export function sealSecret(secret: string, key: Buffer | null): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
}

/** The secret of a stored form; throws when it was sealed under another key (or none is configured). */
export function openSecret(stored: string, key: Buffer | null): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  const [version, iv, tag, sealed] = stored.split(':');
  if (version !== 'v1' || !iv || !tag || !sealed) throw new Error('The signing secret is stored in an unknown form');
  if (!key) throw new Error('The signing secret is sealed and WEBHOOKS_SECRET_KEY is not set');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('The signing secret cannot be opened with the configured WEBHOOKS_SECRET_KEY');
  }
}
