// OIDC_PROVIDERS: presets filled in, plain issuers, and the settings refused at start-up.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './env.js';

const load = (providers: unknown) => loadConfig({ NODE_ENV: 'test', OIDC_PROVIDERS: JSON.stringify(providers) }).signIn.providers;
const keys = { clientId: 'id', clientSecret: 'secret' };

describe('OIDC_PROVIDERS', () => {
  it('fills in the presets and takes any OpenID Connect issuer', () => {
    expect(load([{ id: 'google', preset: 'google', ...keys }, { id: 'ms', preset: 'microsoft', tenant: 'contoso.onmicrosoft.com', ...keys }, { id: 'gh', preset: 'github', ...keys }, { id: 'corp', issuer: 'https://sso.corp.example/realms/main', ...keys }])).toEqual([
      { kind: 'oidc', id: 'google', name: 'Google', issuer: 'https://accounts.google.com', scopes: 'openid email profile', ...keys, trustEmail: false },
      { kind: 'oidc', id: 'ms', name: 'Microsoft', issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0', scopes: 'openid email profile', ...keys, trustEmail: false },
      { kind: 'github', id: 'gh', name: 'GitHub', webUrl: 'https://github.com', apiUrl: 'https://api.github.com', ...keys, trustEmail: false },
      { kind: 'oidc', id: 'corp', name: 'corp', issuer: 'https://sso.corp.example/realms/main', scopes: 'openid email profile', ...keys, trustEmail: false },
    ]);
    expect(loadConfig({ NODE_ENV: 'test' }).signIn.providers).toEqual([]);
  });

  it('refuses what would not work or not be safe, naming the problem', () => {
    const refused = (providers: unknown) => () => load(providers);
    expect(() => loadConfig({ NODE_ENV: 'test', OIDC_PROVIDERS: '{oops' })).toThrow(/OIDC_PROVIDERS: not valid JSON/);
    expect(refused([{ id: 'corp', issuer: 'http://sso.corp.example', ...keys }])).toThrow(/must be an https:\/\/ URL/);
    expect(refused([{ id: 'Corp SSO', issuer: 'https://sso.corp.example', ...keys }])).toThrow(/lower-case letters/);
    expect(refused([{ id: 'g', preset: 'google', clientId: 'id' }])).toThrow(/clientSecret/);
    expect(refused([{ id: 'g', preset: 'google', ...keys, tenant: 'x' }])).toThrow(/tenant/);
    expect(refused([{ id: 'ms', preset: 'microsoft', ...keys }])).toThrow(/tenant/);
    expect(refused([{ id: 'g', preset: 'google', ...keys }, { id: 'g', preset: 'github', ...keys }])).toThrow(/"g" is used twice/);
    // A loopback issuer may be http:// (development).
    expect(load([{ id: 'dev', issuer: 'http://127.0.0.1:9000', ...keys }])[0]).toMatchObject({ issuer: 'http://127.0.0.1:9000' });
  });
});
