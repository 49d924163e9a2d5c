// Once per test run, before any test file: the migrated template every test database is copied from
// (database.ts), handed to the workers through vitest's provide/inject, and removed after the run.
import type { TestProject } from 'vitest/node';
import { createDatabaseTemplate } from './database.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { template, remove } = await createDatabaseTemplate();
  project.provide('databaseTemplate', template);
  return remove;
}
