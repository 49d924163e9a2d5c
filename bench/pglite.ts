// The embedded database of the rest-pglite target, opened by the bench only while no server runs
// (PGlite is single-process): the same VACUUM ANALYZE and counts as on PostgreSQL.
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { datasetSizesQuery, type DatasetSizes } from './database.js';

/** Vacuums and counts the PGlite database the product keeps under `dataDir`, opened as src/db/database.ts opens it. */
export async function preparePglite(dataDir: string): Promise<DatasetSizes> {
  // The extensions the product's migrations create (the search indexes' trigram operators).
  const db = await PGlite.create(path.join(dataDir, 'pglite'), { extensions: { pg_trgm } });
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
