// Runs bench/verify-keys.ts in its own process (nothing else in it competes for the CPU it measures)
// and returns its µs per verification.
import { spawn } from 'node:child_process';
import { repoRoot } from './targets.js';
import type { VerifyInput, VerifyResult } from './verify-keys.js';

export async function measureVerification(databaseUrl: string, input: VerifyInput): Promise<VerifyResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/verify-keys.ts'], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`verify-keys exited ${code}: ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split('\n').pop()!) as VerifyResult;
}
