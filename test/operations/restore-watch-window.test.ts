/**
 * A restore in seconds. The gap keeps its full width (no address is handed out twice), but only its
 * first indexes are derived and watched: as many as the instance can have handed out since the
 * backup, estimated from the backup's own rate. The restored file does not grow by the whole range.
 */
import Sqlite from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { MIN_WATCHED, RESTORE_GAP, estimateWatched } from '../../src/restore/derivation-gap.js';
import { backupDatabase } from '../../src/restore/backup.js';
import { tempDir } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { describeSqliteOnly } from '../helpers/database.js';
import { api } from '../helpers/http.js';
import { newInvoice, startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';

describe('the watched part of a gap', () => {
  let t: InvoiceTestApp;
  beforeAll(async () => {
    t = await startInvoiceApp();
  });
  afterAll(() => t?.close());

  it('covers what the backup handed out at its rate since its newest address, twice over', async () => {
    const db = t.app.services.db;
    const merchantId = (await t.merchant()).merchant.merchant_id;
    const start = Date.parse('2026-03-01T00:00:00.000Z');
    // One address every 10 s, 5,000 of them.
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      address: `Taddress${i}`,
      derivation_index: i + 1,
      merchant_id: merchantId,
      external_user_id: null,
      created_at: new Date(start + i * 10_000).toISOString(),
    }));
    for (let i = 0; i < rows.length; i += 500)
      await db
        .insertInto('deposit_addresses')
        .values(rows.slice(i, i + 500))
        .execute();
    const newest = start + 4_999 * 10_000;
    const aDayLater = new Date(newest + 86_400_000);
    const watched = await estimateWatched(db, aDayLater);
    // A day at one address every 10 s hands out 8,640 addresses.
    expect(watched).toBeGreaterThan(8_640 * 2);
    expect(watched).toBe(MIN_WATCHED + Math.ceil((2 * 5_000 * 86_400_000) / (4_999 * 10_000)));
    // Restored right after the newest address: the minimum.
    expect(await estimateWatched(db, new Date(newest + 1_000))).toBe(MIN_WATCHED + 1);
  });
});

describeSqliteOnly('paygate restore replaces a SQLite file')('paygate restore with the full gap', () => {
  let t: InvoiceTestApp;
  afterAll(() => t?.close());

  it('skips 100,000 indexes and derives only the watched ones', async () => {
    t = await startInvoiceApp({ clock: new ManualClock(new Date()) });
    const { key } = await t.merchant();
    for (let i = 0; i < 3; i++)
      expect((await api(t.url, '/v1/invoices', { key, body: newInvoice() })).status).toBe(201);
    const dir = tempDir('paygate-watch-');
    const backup = path.join(dir, 'backup.db');
    await backupDatabase(t.app.config.databaseUrl, backup);
    const env = { DATABASE_URL: path.join(dir, 'paygate.db') };

    const restored = await runCli(['restore', backup, '--json'], env);
    expect(restored.code, restored.stdout + restored.stderr).toBe(0);
    const gap = restored.json.derivation_gap;
    expect(gap.to_index - gap.from_index + 1).toBe(RESTORE_GAP);
    expect(gap.watched_to_index - gap.from_index + 1).toBe(gap.addresses);
    expect(gap.addresses).toBeGreaterThanOrEqual(MIN_WATCHED);
    expect(gap.addresses).toBeLessThan(MIN_WATCHED + 100);

    const file = new Sqlite(env.DATABASE_URL, { readonly: true });
    try {
      expect(file.prepare('select count(*) from unattributed_addresses').pluck().get()).toBe(gap.addresses);
      expect(file.prepare('select next_index from wallet').pluck().get()).toBe(gap.to_index + 1);
      expect(file.prepare('select watched_to_index from derivation_gaps').pluck().get()).toBe(gap.watched_to_index);
    } finally {
      file.close();
    }

    const fixed = await runCli(['restore', backup, '--watch', '20', '--json'], env);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.json.derivation_gap.addresses).toBe(20);
  });
});
