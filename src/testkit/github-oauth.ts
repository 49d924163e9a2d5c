// A stand-in for GitHub's OAuth2 web flow and REST API (a third party's service, not ours), on
// loopback: the authorize page signs in a preset user at once; the token endpoint checks the client
// secret, the code, its redirect URI and the PKCE verifier as GitHub does; /api/user and
// /api/user/emails answer for the token. Enough to run the `github` preset end to end.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface FakeGitHub {
  webUrl: string;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Who the next authorization signs in. */
  user: GitHubUser;
  close(): Promise<void>;
}

export async function startFakeGitHub(user: GitHubUser): Promise<FakeGitHub> {
  const clientId = 'Iv1.test-client';
  const clientSecret = 'github test client secret';
  const codes = new Map<string, { challenge: string; redirectUri: string; user: GitHubUser }>();
  const tokens = new Map<string, GitHubUser>();
  const github: FakeGitHub = { webUrl: '', apiUrl: '', clientId, clientSecret, user, close: async () => {} };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, github.webUrl);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/login/oauth/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || q.get('code_challenge_method') !== 'S256') return json(400, { error: 'bad request' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, user: github.user });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state')!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString();
      const [id, secret] = basic ? basic.split(':').map(decodeURIComponent) : [form.get('client_id'), form.get('client_secret')];
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (id !== clientId || secret !== clientSecret || !grant || grant.redirectUri !== form.get('redirect_uri') || grant.challenge !== challenge) {
        return json(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      }
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, grant.user);
      return json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const owner = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    if (url.pathname.startsWith('/api/') && !owner) return json(401, { message: 'Bad credentials' });
    if (url.pathname === '/api/user') return json(200, { id: owner!.id, login: owner!.login, name: owner!.name });
    if (url.pathname === '/api/user/emails') return json(200, owner!.emails.map((e) => ({ ...e, visibility: null })));
    return json(404, { message: 'Not Found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  github.webUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  github.apiUrl = `${github.webUrl}/api`;
  github.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return github;
}
