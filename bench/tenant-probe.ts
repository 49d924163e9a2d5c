// Another tenant's reads while the realtime scenario writes (issue 36: one user's 500 distinct-filter
// subscriptions took another team's GET /customers p50 from 6 ms to 526 ms): a user of a team of its
// own lists its customers (GET /api/v1/customers, 20 of them) one request after another, with a short
// pause between, each timed; its p50 while the writes are delivered is compared with its p50 while the
// instance is idle. The client runs in the bench's process, as the subscribers' client does.
import { obtainSessionCookie, type Account } from './session.js';

const tenant: Account = { email: 'realtime-tenant@example.com', password: 'benchpassword', firstName: 'Other', lastName: 'Tenant' };
const customers = 20;
const pauseMs = 20;
const path = '/api/v1/customers?limit=20';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tenant's session on the server at `baseUrl` (signed up the first time), with its customers written. */
export async function prepareTenant(baseUrl: string): Promise<string> {
  const cookie = await obtainSessionCookie(baseUrl, tenant);
  const listed = await fetch(`${baseUrl}${path}`, { headers: { cookie } });
  const have = ((await listed.json()) as { data?: unknown[] }).data?.length ?? 0;
  for (let i = have; i < customers; i++) {
    const response = await fetch(`${baseUrl}/api/v1/customers`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Tenant customer ${i}`, account: 90_000_000 + i, office: 'Lyon' }),
    });
    const text = await response.text();
    if (response.status !== 201 && response.status !== 409) throw new Error(`POST /api/v1/customers (tenant): ${response.status} ${text.slice(0, 300)}`);
  }
  return cookie;
}

/** The tenant's list, read again and again until `done` resolves; each read's latency in ms. */
export async function probeUntil(baseUrl: string, cookie: string, done: Promise<unknown>): Promise<number[]> {
  let over = false;
  void done.finally(() => (over = true)).catch(() => {});
  const latencies: number[] = [];
  while (!over) {
    const sent = performance.now();
    const response = await fetch(`${baseUrl}${path}`, { headers: { cookie } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${path} (tenant): ${response.status}`);
    latencies.push(performance.now() - sent);
    await sleep(pauseMs);
  }
  return latencies;
}

/** The tenant's list read for `ms` on an otherwise idle instance. */
export const probeFor = (baseUrl: string, cookie: string, ms: number) => probeUntil(baseUrl, cookie, sleep(ms));
