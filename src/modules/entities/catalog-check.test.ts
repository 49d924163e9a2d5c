// Entity authoring that fails at start-up, not at request time (issue 37): a definition without its
// generated Prisma model, without its table, or changed without its migration is one line naming the
// fix. Checked against a really migrated database, and through the server's own process, which
// refuses to start on a database whose `orders.lines` column is gone (a 500 on every orders request
// before). On PGlite (a data directory) and, with TEST_DATABASE_URL, PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityDefinitions } from '../../config/entities/index.js';
import { type EntityDefinition } from '../../config/entity-definition.js';
import { sanitizeEntities } from '../../config/sanitize-entities.js';
import { openDatabase, type Database } from '../../db/database.js';
import { applyMigrations } from '../../db/migrations.js';
import { migrationsDir } from '../../db/paths.js';
import { createTestDatabase, seedDataDir, testDatabaseUrl, type TestDatabase } from '../../testkit/database.js';
import { freePort, spawnEntry } from '../../testkit/processes.js';
import { catalogProblem, readCatalog, type Catalog } from './catalog-check.js';

const root = mkdtempSync(path.join(tmpdir(), 'catalog-check-'));
let testDb: TestDatabase | undefined;
let catalog: Catalog;

const query = (database: Database) => <Row>(sql: string, values: unknown[]) => database.hotQuery<Row>('entity_catalog', sql, values);

beforeAll(async () => {
  testDb = await createTestDatabase();
  catalog = await readCatalog(query(testDb.database));
}, 120_000);
afterAll(async () => {
  await testDb?.drop();
  rmSync(root, { recursive: true, force: true });
});

/** The shipped definitions, `orders` with one more stored field (`discount`). */
const withDiscount = (): EntityDefinition[] => entityDefinitions.map((d) => (d.slug === 'orders' ? { ...d, fields: [...d.fields, { ...d.fields[0]!, name: 'discount', type: 'number' as const }] } : d));

describe('entity definitions against the generated client and the migrated database', () => {
  it('agree as shipped', () => {
    expect(catalogProblem(entityDefinitions, catalog)).toBeNull();
  });

  it('a field added without generate and migration: its column is named, with the commands', () => {
    expect(catalogProblem(withDiscount(), catalog)).toBe('entity orders: table "orders" has no column "discount": the definition changed without its migration; run `npm run db:entities -- <name>` (generate, then the migration) and restart');
  });

  it('an entity added without generate: no Prisma model', () => {
    const added = [...entityDefinitions, ...sanitizeEntities([{ name: 'Invoicee', slug: 'invoicees', tableName: 'invoicees', fields: [{ name: 'title', type: 'string' }] }])];
    expect(catalogProblem(added, catalog)).toBe('entity invoicees: Invoicee has no generated Prisma model: run `npm run db:entities -- <name>` (generate, then the migration)');
  });

  it('a model generated without its migration: no table', () => {
    const added = [...entityDefinitions, ...sanitizeEntities([{ name: 'Invoicee', slug: 'invoicees', tableName: 'invoicees', fields: [{ name: 'title', type: 'string' }] }])];
    expect(catalogProblem(added, catalog, ['Invoicee', ...entityDefinitions.flatMap((d) => [d.name, ...d.children.map((c) => c.name)])])).toBe(
      'entity invoicees: table "invoicees" is not in the database: run `npm run db:entities -- <name>` and restart (migrations apply at start-up)',
    );
  });

  it('the server refuses to start on a database whose orders table lacks a column, in one line', async () => {
    const dataDir = path.join(root, 'data');
    let env: Record<string, string>;
    if (testDatabaseUrl) {
      await testDb!.database.prisma.$executeRawUnsafe('ALTER TABLE orders DROP COLUMN lines');
      env = { DATABASE_URL: testDb!.url! };
    } else {
      await seedDataDir(dataDir); // the run's migrated template: nothing left to apply, which costs one read
      const database = await openDatabase({ dataDir, poolSize: 1 });
      await applyMigrations(database, migrationsDir);
      await database.prisma.$executeRawUnsafe('ALTER TABLE orders DROP COLUMN lines');
      await database.close();
      env = { DATA_DIR: dataDir };
    }
    const server = spawnEntry('src/main.ts', [], { env: { ...env, PORT: String(await freePort()), UPLOAD_DIR: path.join(root, 'uploads') } });
    const ended = await server.exit(150_000);
    expect(ended, `still running; stderr: ${server.stderr()}`).not.toBeNull();
    expect(ended!.code).toBe(1);
    expect(server.stderr().trim()).toBe(
      'Failed to start: entity orders: table "orders" has no column "lines": the definition changed without its migration; run `npm run db:entities -- <name>` (generate, then the migration) and restart',
    );
  }, 180_000);
});
