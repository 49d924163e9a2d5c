// Password hashing with argon2id (@node-rs/argon2, OWASP parameters).
import { hash, verify } from '@node-rs/argon2';

const options = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

// Verified against when the e-mail is unknown, so that an unknown e-mail and a wrong password take
// the same time.
let decoy: Promise<string> | undefined;

/**
 * The stored "hash" of an account without a password (made by a sign-in provider): no password
 * matches it, and checking one against it takes as long as against a real hash.
 */
export const noPassword = '!';

export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

/** Verifies a password; with no stored hash (or noPassword) it verifies against a decoy and answers false. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null || storedHash === noPassword) {
    decoy ??= hashPassword('decoy password that matches nothing');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
