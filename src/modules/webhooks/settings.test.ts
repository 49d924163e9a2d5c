// The webhooks' settings (parsed once, fail-closed) and the sealing of signing secrets.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { newSigningSecret, openSecret, sealSecret } from './signing-secret.js';

describe('webhooks settings', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({}).webhooks).toEqual({ allowPrivate: false, timeoutMs: 10_000, secretKey: null, deliveryRetentionMs: 30 * 86_400_000 });
  });

  it('reads every variable; the key as 64 hex characters or base64 of 32 bytes', () => {
    const hex = 'ab'.repeat(32);
    const config = loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_TIMEOUT_MS: '2500', WEBHOOKS_SECRET_KEY: hex, WEBHOOKS_DELIVERY_RETENTION_DAYS: '7' });
    expect(config.webhooks).toEqual({ allowPrivate: true, timeoutMs: 2500, secretKey: Buffer.from(hex, 'hex'), deliveryRetentionMs: 7 * 86_400_000 });
    expect(loadConfig({ WEBHOOKS_SECRET_KEY: Buffer.from(hex, 'hex').toString('base64') }).webhooks.secretKey).toEqual(Buffer.from(hex, 'hex'));
  });

  it.each([
    ['WEBHOOKS_ALLOW_PRIVATE', 'yes'],
    ['WEBHOOKS_TIMEOUT_MS', '10'],
    ['WEBHOOKS_SECRET_KEY', 'too-short'],
    ['WEBHOOKS_SECRET_KEY', 'ab'.repeat(16)],
    ['WEBHOOKS_DELIVERY_RETENTION_DAYS', '0'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});

describe('signing secrets', () => {
  const key = Buffer.alloc(32, 7);

  it('are whsec_ and 32 random bytes, sealed with AES-256-GCM under the key (a fresh IV each time)', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSigningSecret()).not.toBe(secret);
    const sealed = sealSecret(secret, key);
    expect(sealed).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
    expect(sealSecret(secret, key)).not.toBe(sealed);
    expect(openSecret(sealed, key)).toBe(secret);
  });

  it('are stored plain without a key, and refuse to open under another key or none', () => {
    const secret = newSigningSecret();
    expect(openSecret(sealSecret(secret, null), key)).toBe(secret);
    const sealed = sealSecret(secret, key);
    expect(() => openSecret(sealed, Buffer.alloc(32, 8))).toThrow('cannot be opened');
    expect(() => openSecret(sealed, null)).toThrow('WEBHOOKS_SECRET_KEY is not set');
    expect(() => openSecret(`${sealed.slice(0, -4)}AAA=`, key)).toThrow('cannot be opened');
  });
});
