/**
 * The payout worker's pages of one status (payoutsIn): oldest first by (created_at, id), each page
 * after the last row of the previous one, so that paging through a backlog gives every payout
 * once, in order, ties of created_at included; and each page starts where the last one ended in
 * the index (test/db/query-plans.test.ts) instead of reading the status from its oldest payout.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { PayoutStatus } from '../../src/db/schema.js';
import { payoutsIn, type PageCursor } from '../../src/payouts/worker/store.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

let database: Database;
const insert = (id: string, status: PayoutStatus, createdAt: string) =>
  database.db
    .insertInto('payouts')
    .values({
      id,
      merchant_id: 'm',
      reference: `ref-${id}`,
      status,
      asset: 'USDT_TRON',
      network: 'tron',
      decimals: 6,
      to_address: 'T',
      amount: '1',
      fee_amount: '0',
      fee_charged: '0',
      review_reasons: '[]',
      sign_attempts: 0,
      created_at: createdAt,
      updated_at: createdAt,
    })
    .execute();

beforeAll(async () => {
  database = await openTestDatabase(path.join(tempDir(), 'pages.db'));
  await migrateToLatest(database.db);
  await database.db
    .insertInto('merchants')
    .values({
      id: 'm',
      name: 'Shop',
      address_mode: 'per_invoice',
      approval: 'approved',
      enabled: 1,
      owner_enabled: 1,
      site_url: null,
      return_url: null,
      cancel_url: null,
      legacy_network_fee_payer: null,
      confirmations: null,
      created_at: '',
      updated_at: '',
    })
    .execute();
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  // Ties of created_at, ids out of insertion order, other statuses in between.
  const rows: Array<[string, PayoutStatus, number]> = [
    ['p-07', 'queued', 1],
    ['p-03', 'queued', 1],
    ['p-05', 'queued', 1],
    ['p-01', 'confirmed', 1],
    ['p-09', 'queued', 2],
    ['p-02', 'queued', 2],
    ['p-04', 'approved', 2],
    ['p-08', 'queued', 3],
    ['p-06', 'queued', 4],
    ['p-10', 'queued', 4],
    ['p-11', 'signing', 5],
  ];
  for (const [id, status, s] of rows) await insert(id, status, at(s));
});
afterAll(() => database.close());

describe('payout worker pages', () => {
  it.each([1, 2, 3, 4, 8, 20])('pages of %i give every queued payout once, by (created_at, id)', async (size) => {
    const seen: string[] = [];
    let after: PageCursor | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const rows = await payoutsIn(database.db, 'queued', size, after);
      seen.push(...rows.map((r) => r.id));
      const last = rows.at(-1);
      if (rows.length < size || !last) break;
      after = { created_at: last.created_at, id: last.id };
    }
    expect(seen).toEqual(['p-03', 'p-05', 'p-07', 'p-02', 'p-09', 'p-08', 'p-06', 'p-10']);
  });
});
