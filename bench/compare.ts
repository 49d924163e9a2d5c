// `npx tsx bench/compare.ts <checkoutA> <checkoutB> [seconds] [pairs]` (ONLY=list,read,c20,c100,gql,me,meRest; CONC=8):
// both builds (dist/) served on the seeded bench database at once, runs alternated A/B per path so that
// machine drift hits both alike; medians of req/s and server CPU per request. Run `npm run bench` first
// (it seeds bench_platform) and `npm run build` in both checkouts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { currentSessionQuery } from './scenarios.js';
import { obtainSessionCookie } from './session.js';
import { tasksListPath, tasksListQuery, tasksListVariables } from './tasks.js';
import { customersWithChildrenPath } from './customers.js';

const [repoA, repoB] = [process.argv[2]!, process.argv[3]!];
const seconds = Number(process.argv[4] ?? 3);
const pairs = Number(process.argv[5] ?? 5);
const conc = Number(process.env.CONC ?? 8);
function start(repo: string, port: number) {
  const env = { ...process.env, REQUIRE_EMAIL_VERIFICATION: 'false', NODE_ENV: 'production', LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bench_platform', DB_POOL_SIZE: '8', MALLOC_ARENA_MAX: '2',
    RATE_LIMIT_TIERS: 'free=100000000,pro=100000000,enterprise=100000000', RATE_LIMIT_SESSION: '100000000', SIGNIN_MAX_FAILURES_PER_IP: '100000000', UPLOAD_DIR: '/tmp/h/uploads', RATE_LIMIT_SCOPES: 'tasks:read=100000000,tasks:write=100000000,tasks:delete=100000000',
    PLANS_JSON: JSON.stringify({ free: { limits: { team_members: null, tasks: null } } }) };
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: repo, env, stdio: ['ignore', 'inherit', 'inherit'] });
  return { child, base: `http://127.0.0.1:${port}` };
}
const cpu = (c: ChildProcess) => { const f = readFileSync(`/proc/${c.pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
async function healthy(base: string) { for (let i = 0; i < 300; i++) { try { if ((await fetch(`${base}/healthz`)).ok) return; } catch { /* not listening yet */ } await new Promise((r) => setTimeout(r, 100)); } throw new Error('not healthy'); }
const port = 41000 + Math.floor(Math.random() * 1000);
const servers = [start(repoA, port), start(repoB, port + 1)];
async function load(base: string, make: () => [string, RequestInit], ms: number) {
  const until = performance.now() + ms; let n = 0;
  const w = async () => { while (performance.now() < until) { const [p, init] = make(); const r = await fetch(base + p, init); const t = await r.text(); if (!r.ok) throw new Error(`${r.status} ${t.slice(0, 300)}`); n++; } };
  await Promise.all(Array.from({ length: conc }, w)); return n;
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
async function main() {
  try {
    await Promise.all(servers.map((s) => healthy(s.base)));
    const cookies = await Promise.all(servers.map((s) => obtainSessionCookie(s.base)));
    const list = await (await fetch(servers[0]!.base + '/api/v1/tasks?limit=1', { headers: { cookie: cookies[0]! } })).json() as { data: { id: string }[] };
    const id = list.data[0]!.id;
    const paths: Record<string, (cookie: string) => [string, RequestInit]> = {
      list: (cookie) => [tasksListPath, { headers: { cookie } }],
      read: (cookie) => [`/api/v1/tasks/${id}`, { headers: { cookie } }],
      c20: (cookie) => [customersWithChildrenPath(20), { headers: { cookie } }],
      c100: (cookie) => [customersWithChildrenPath(100), { headers: { cookie } }],
      me: (cookie) => ['/graphql', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query: currentSessionQuery }) }],
      meRest: (cookie) => ['/api/auth/session', { headers: { cookie } }],
      gql: (cookie) => ['/graphql', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query: tasksListQuery, variables: tasksListVariables }) }],
    };
    for (const name of (process.env.ONLY ?? 'list,read,c20,c100').split(',')) {
      const res = servers.map(() => ({ cpu: [] as number[], rps: [] as number[] }));
      for (let i = 0; i < servers.length; i++) await load(servers[i]!.base, () => paths[name]!(cookies[i]!), 2000);
      for (let p = 0; p < pairs; p++) {
        for (const i of p % 2 ? [1, 0] : [0, 1]) {
          const s = servers[i]!; const c0 = cpu(s.child); const t0 = performance.now();
          const n = await load(s.base, () => paths[name]!(cookies[i]!), seconds * 1000);
          const c1 = cpu(s.child); const t1 = performance.now();
          res[i]!.cpu.push((c1 - c0) / n); res[i]!.rps.push(n / ((t1 - t0) / 1000));
        }
      }
      const [a, b] = res;
      console.log(`${name.padEnd(6)} A ${median(a!.rps).toFixed(0).padStart(5)} req/s ${median(a!.cpu).toFixed(3)} ms | B ${median(b!.rps).toFixed(0).padStart(5)} req/s ${median(b!.cpu).toFixed(3)} ms | B/A req/s ${(median(b!.rps) / median(a!.rps)).toFixed(3)}  cpu ${(median(b!.cpu) / median(a!.cpu)).toFixed(3)}   [B/A per pair: ${b!.rps.map((x, k) => (x / a!.rps[k]!).toFixed(2)).join(' ')}]`);
    }
  } finally { for (const s of servers) s.child.kill('SIGTERM'); }
}
main();
