// Where and on what a run was measured, stored beside its samples: figures from different machines,
// commits or library versions are not comparable.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './targets.js';

const trackedPackages = ['graphql', 'graphql-yoga', '@pothos/core', '@prisma/client', 'pg', 'autocannon', '@electric-sql/pglite', 'sharp', 'busboy'];

export interface Environment {
  node: string;
  postgres: string;
  packages: Record<string, string>;
  gitCommit: string;
  /** Uncommitted changes at the time of the run: the commit alone does not describe the code. */
  gitDirty: boolean;
  cpuModel: string;
  nproc: number;
  platform: string;
}

function packageVersion(name: string): string {
  try {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string };
    return manifest.version ?? 'unknown';
  } catch {
    return 'missing';
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

export function describeEnvironment(postgres: string): Environment {
  return {
    node: process.version,
    postgres,
    packages: Object.fromEntries(trackedPackages.map((name) => [name, packageVersion(name)])),
    gitCommit: git(['rev-parse', 'HEAD']),
    gitDirty: git(['status', '--porcelain']) !== '',
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    nproc: os.availableParallelism(),
    platform: `${os.platform()} ${os.release()}`,
  };
}
