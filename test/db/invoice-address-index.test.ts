/**
 * Migration 0040: invoices are found from their deposit address through its derivation index.
 * An invoice written by an older `serve` still running when the migration was applied (its insert
 * names no address_index) is found all the same, and the migration may run again.
 */
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { invoiceOfAddress } from '../../src/invoices/store.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const AT = '2026-01-01T00:00:00.000Z';
const ADDRESS = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';

describeSqliteOnly("SQLite's migration 0040 on existing rows; PostgreSQL's baseline has the column")(
  'invoices by the derivation index of their address',
  () => {
    let database: SqliteDatabase;
    beforeEach(async () => {
      database = openSqlite(path.join(tempDir(), 'ai.db'));
      await migrateToLatest(database.db);
      // Rows of these two tables only: the merchant is not what is tested.
      database.sqlite.pragma('foreign_keys = OFF');
    });
    afterEach(() => database.close());

    it('fills the index of an invoice inserted without it, as an older serve would, and the migration runs again', async () => {
      database.sqlite
        .prepare(
          'insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, 7, ?, null, ?)',
        )
        .run(ADDRESS, 'm', AT);
      database.sqlite
        .prepare(
          `insert into invoices (id, merchant_id, order_id, status, asset, network, decimals, address, external_user_id, amount_requested, amount_expected,
          amount_received, amount_credited, service_fee_payer, service_fee_percent, service_fee_fixed, service_fee_amount, expires_at, created_at, updated_at)
         values ('inv-old', 'm', 'o-1', 'created', 'USDT_TRON', 'tron', 6, ?, null, '1', '1', '0', '0', 'merchant', '0', '0', '0', ?, ?, ?)`,
        )
        .run(ADDRESS, AT, AT, AT);
      expect(database.sqlite.prepare("select address_index from invoices where id = 'inv-old'").pluck().get()).toBe(7);
      expect(await invoiceOfAddress(database.db, ADDRESS, 7)).toMatchObject({ id: 'inv-old' });

      await MIGRATIONS['0040_invoice_address_index']!.up(database.db);
      expect(await invoiceOfAddress(database.db, ADDRESS, 7)).toMatchObject({ id: 'inv-old' });
    });
  },
);
