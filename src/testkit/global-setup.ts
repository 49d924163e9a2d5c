// Once per test run, before any test file: the migrated template every test database is copied from
// (database.ts) and the build the processes tests start run (processes.ts), handed to the workers
// through vitest's provide/inject, and removed after the run.
import type { TestProject } from 'vitest/node';
import { createDatabaseTemplate } from './database.js';
import { buildForRun } from './processes.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [database, build] = await Promise.all([createDatabaseTemplate(), buildForRun()]);
  project.provide('databaseTemplate', database.template);
  project.provide('processBuild', build.dir);
  return async () => {
    await Promise.all([database.remove(), build.remove()]);
  };
}
