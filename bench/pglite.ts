// The embedded database of the rest-pglite target, opened by the bench only while no server runs
// (PGlite is single-process): the same VACUUM ANALYZE and counts as on PostgreSQL.
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { datasetSizesQuery, type DatasetSizes } from './database.js';

/** Vacuums and counts the PGlite database the product keeps under `dataDir` (see src/db/database.ts). */
export async function preparePglite(dataDir: string): Promise<DatasetSizes> {
  const db = await PGlite.create(path.join(dataDir, 'pglite'));
  try {
    await db.exec('VACUUM ANALYZE');
    const { rows } = await db.query<DatasetSizes>(datasetSizesQuery);
    const row = rows[0];
    if (!row) throw new Error('dataset size query returned no row');
    return row;
  } finally {
    await db.close();
  }
}
