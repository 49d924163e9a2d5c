// Secrets the server must read back (webhook signing secrets, two-factor secrets), stored *sealed*:
// AES-256-GCM under a configured 32-byte key (`v1:<iv>:<tag>:<ciphertext>`, base64), so that a copy of
// the database alone does not give them away. Without a key a secret is stored as `plain:<secret>`
// (development); sealed and plain values both open, so setting the key later seals new secrets
// without a migration.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** What a secret is and the setting its key comes from, for the errors of `unseal`. */
export interface SealingKeyName {
  what: string;
  setting: string;
}

/** The stored form of a secret. */
export function seal(secret: string, key: Buffer | null): string {
  if (!key) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
}

/** The secret of a stored form; throws when it was sealed under another key (or none is configured). */
export function unseal(stored: string, key: Buffer | null, { what, setting }: SealingKeyName): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  const [version, iv, tag, sealed] = stored.split(':');
  if (version !== 'v1' || !iv || !tag || !sealed) throw new Error(`${what} is stored in an unknown form`);
  if (!key) throw new Error(`${what} is sealed and ${setting} is not set`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`${what} cannot be opened with the configured ${setting}`);
  }
}
