// The pool's held BEGIN (held-begin.ts), on PostgreSQL: it opens the transaction with the statement
// after it, in one message or just before it; the transaction is a real one (its statements share
// one transaction id, and a ROLLBACK undoes them); and a BEGIN still held when its connection goes
// back to the pool is dropped, so the next user of that connection is in no transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { testDatabaseUrl } from '../testkit/database.js';
import { heldBeginPool } from './held-begin.js';

describe.runIf(testDatabaseUrl !== undefined)('a pool connection holding BEGIN', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    // One connection: every checkout below is the same connection.
    pool = heldBeginPool({ connectionString: testDatabaseUrl, max: 1 });
    await pool.query('CREATE TEMP TABLE IF NOT EXISTS held_probe (n int)');
  });
  afterAll(() => pool.end());

  const txid = async (client: pg.PoolClient) => (await client.query<{ id: string }>({ text: 'SELECT txid_current()::text AS id' })).rows[0]!.id;
  const inTransaction = async (client: pg.PoolClient) => (await txid(client)) === (await txid(client));

  const firsts: [string, pg.QueryConfig][] = [
    ['without parameters (sent with it)', { text: 'INSERT INTO held_probe VALUES (1)' }],
    ['with parameters (sent before it)', { text: 'INSERT INTO held_probe VALUES ($1)', values: [1] }],
  ];
  for (const [kind, first] of firsts) {
    it(`opens the transaction with a first statement ${kind}, which a ROLLBACK undoes`, async () => {
      const client = await pool.connect();
      try {
        expect((await client.query({ text: 'BEGIN' })).command).toBe('BEGIN');
        expect((await client.query(first)).rowCount).toBe(1);
        expect(await inTransaction(client)).toBe(true);
        await client.query({ text: 'ROLLBACK' });
        expect((await client.query({ text: 'SELECT count(*)::int AS n FROM held_probe' })).rows[0]).toEqual({ n: 0 });
        expect(await inTransaction(client)).toBe(false);
      } finally {
        client.release();
      }
    });
  }

  it('answers the statement sent with it as pg answers it alone (its rows, in the row mode asked)', async () => {
    const client = await pool.connect();
    try {
      await client.query({ text: 'BEGIN' });
      const answer = await client.query({ text: `SELECT 'a' AS x, 2 AS y`, rowMode: 'array' });
      expect(answer.rows).toEqual([['a', 2]]);
      expect(answer.fields.map((f) => f.name)).toEqual(['x', 'y']);
      await client.query({ text: 'COMMIT' });
    } finally {
      client.release();
    }
  });

  it('drops a BEGIN still held when the connection goes back to the pool: its next user is in no transaction', async () => {
    const first = await pool.connect();
    await first.query({ text: 'BEGIN' });
    first.release();
    const next = await pool.connect();
    try {
      expect(next).toBe(first);
      expect(await inTransaction(next)).toBe(false);
    } finally {
      next.release();
    }
  });
});
