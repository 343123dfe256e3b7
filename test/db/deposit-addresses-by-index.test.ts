/**
 * Migration 0041: deposit addresses keyed by their derivation index, without an index on the
 * address text. The rows survive as they were, invoices keep their foreign key to the index, the
 * trigger of 0040 still fills an older serve's insert, and a database whose invoices point at no
 * deposit address is refused with nothing changed.
 */
import { Migrator } from 'kysely';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';

const AT = '2026-01-01T00:00:00.000Z';
const MERCHANT = 'm-1';
const A = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const B = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const C = 'TKVSaJQDWeKFSEXmA44pjxduGTxyXa6B52';

const INVOICE = `insert into invoices (id, merchant_id, order_id, status, asset, network, decimals, address, address_index, external_user_id, amount_requested, amount_expected,
  amount_received, amount_credited, service_fee_payer, service_fee_percent, service_fee_fixed, service_fee_amount, expires_at, created_at, updated_at)
  values (?, 'm-1', ?, 'created', 'USDT_TRON', 'tron', 6, ?, ?, null, '1', '1', '0', '0', 'merchant', '0', '0', '0', '${AT}', '${AT}', '${AT}')`;

describe('deposit addresses by derivation index (0041)', () => {
  let database: Database;
  afterEach(() => database.close());

  /** A database at 0040 with a merchant, two deposit addresses and an invoice on each. */
  async function at0040(): Promise<Database> {
    database = openDatabase(path.join(tempDir(), 'by-index.db'));
    const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => MIGRATIONS } }).migrateTo('0040_invoice_address_index');
    if (error) throw error;
    const sqlite = database.sqlite;
    sqlite.prepare("insert into merchants (id, name, address_mode, approval, enabled, created_at, updated_at) values (?, 'shop', 'per_invoice', 'approved', 1, ?, ?)").run(MERCHANT, AT, AT);
    const address = sqlite.prepare('insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, ?, ?)');
    address.run(A, 9, MERCHANT, null, AT);
    address.run(B, 3, MERCHANT, 'user-1', AT);
    sqlite.prepare(INVOICE).run('inv-a', 'o-a', A, 9);
    sqlite.prepare(INVOICE).run('inv-b', 'o-b', B, 3);
    return database;
  }

  const rows = (d: Database) => d.sqlite.prepare('select * from deposit_addresses order by derivation_index').all();
  const indexesOf = (d: Database) => (d.sqlite.prepare("select name, \"unique\" as u from pragma_index_list('deposit_addresses') order by name").all() as Array<{ name: string; u: number }>);

  it('keeps every row, drops the index on the address, and keeps the key from invoices to the index', async () => {
    const d = await at0040();
    const before = rows(d);
    expect(indexesOf(d).map((i) => i.name)).toContain('sqlite_autoindex_deposit_addresses_1');

    expect((await migrateToLatest(d.db)).applied).toEqual(['0041_deposit_addresses_by_index']);
    expect(rows(d)).toEqual(before);
    // Only the one-address-per-user index is left: the derivation index is the table's own key.
    expect(indexesOf(d)).toEqual([{ name: 'deposit_addresses_user', u: 1 }]);
    expect(d.sqlite.prepare("select count(*) from pragma_table_info('deposit_addresses') where name = 'derivation_index' and pk = 1").pluck().get()).toBe(1);
    expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(d.sqlite.pragma('foreign_key_check')).toEqual([]);

    // An invoice on no deposit address is still refused; one per user is still one.
    expect(() => d.sqlite.prepare(INVOICE).run('inv-x', 'o-x', C, 77)).toThrow(/FOREIGN KEY|not the deposit address/);
    expect(() => d.sqlite.prepare("insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, 10, ?, 'user-1', ?)").run(C, MERCHANT, AT)).toThrow(/UNIQUE/);
    expect(() => d.sqlite.prepare("insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, 9, ?, null, ?)").run(C, MERCHANT, AT)).toThrow(/UNIQUE|PRIMARY/);

    // An invoice's address is the one of its index, and stays so.
    expect(() => d.sqlite.prepare(INVOICE).run('inv-y', 'o-y', C, 9)).toThrow(/not the deposit address of its address_index/);
    expect(() => d.sqlite.prepare("update invoices set address = ? where id = 'inv-a'").run(B)).toThrow(/keeps its deposit address/);
    expect(() => d.sqlite.prepare("update invoices set address_index = 3 where id = 'inv-a'").run()).toThrow(/keeps its deposit address/);
    // The connection is defensive again: sqlite_schema cannot be written.
    expect(() => d.sqlite.prepare("update sqlite_schema set sql = sql where name = 'invoices'").run()).toThrow();

    // An older serve's insert (no address_index) is still filled by 0040's trigger.
    d.sqlite.prepare('insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, 12, ?, null, ?)').run(C, MERCHANT, AT);
    d.sqlite.prepare(INVOICE).run('inv-c', 'o-c', C, null);
    expect(d.sqlite.prepare("select address_index from invoices where id = 'inv-c'").pluck().get()).toBe(12);
  });

  it('refuses a database whose invoice points at no deposit address, and changes nothing', async () => {
    const d = await at0040();
    d.sqlite.pragma('foreign_keys = OFF');
    d.sqlite.prepare(INVOICE).run('inv-lost', 'o-lost', C, 41);
    d.sqlite.pragma('foreign_keys = ON');
    const schema = d.sqlite.prepare('select type, name, sql from sqlite_schema order by name').all();

    await expect(migrateToLatest(d.db)).rejects.toThrow(/1 invoice\(s\) have an address index that is no deposit address/);
    expect(d.sqlite.prepare('select type, name, sql from sqlite_schema order by name').all()).toEqual(schema);
    expect(d.sqlite.prepare("select count(*) from kysely_migration where name = '0041_deposit_addresses_by_index'").pluck().get()).toBe(0);
  });
});
