/**
 * Migration 0042: the database holds deposit addresses to their keys. A database at 0040 and one
 * that ran the earlier 0041 (deposit addresses keyed by index without an index on the address,
 * invoices without their key on the address) end at the same schema with their rows. Then a
 * second row with the same address, a deposit address of no merchant and an invoice on no deposit
 * address are refused by the database itself; an upgrade that would leave an invoice on no deposit
 * address is refused with nothing changed.
 */
import type Sqlite from 'better-sqlite3';
import { Migrator } from 'kysely';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const AT = '2026-01-01T00:00:00.000Z';
const MERCHANT = 'm-1';
const A = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const B = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const C = 'TKVSaJQDWeKFSEXmA44pjxduGTxyXa6B52';

const INVOICE = `insert into invoices (id, merchant_id, order_id, status, asset, network, decimals, address, address_index, external_user_id, amount_requested, amount_expected,
  amount_received, amount_credited, service_fee_payer, service_fee_percent, service_fee_fixed, service_fee_amount, expires_at, created_at, updated_at)
  values (?, 'm-1', ?, 'created', 'USDT_TRON', 'tron', 6, ?, ?, null, '1', '1', '0', '0', 'merchant', '0', '0', '0', '${AT}', '${AT}', '${AT}')`;
const ADDRESS =
  'insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, ?, ?)';

/**
 * What the earlier 0041 left, made by table rebuilds: deposit addresses keyed by their index with
 * no index on the address, invoices without the key on their address, its two triggers.
 */
function asTheEarlier0041Left(sqlite: Sqlite.Database): void {
  const invoices = sqlite.prepare("select sql from sqlite_schema where name = 'invoices'").pluck().get() as string;
  const invoiceParts = sqlite
    .prepare(
      "select sql from sqlite_schema where tbl_name = 'invoices' and type in ('index', 'trigger') and sql is not null and name != 'invoices_address_index_fill'",
    )
    .pluck()
    .all() as string[];
  sqlite.pragma('foreign_keys = OFF');
  sqlite.transaction(() => {
    sqlite.exec(`drop trigger invoices_address_index_fill;
      create table deposit_addresses_rebuilt ("address" text not null, "derivation_index" integer primary key not null check (derivation_index >= 0),
        "merchant_id" text not null references "merchants" ("id"), "external_user_id" text, "created_at" text not null);
      insert into deposit_addresses_rebuilt select address, derivation_index, merchant_id, external_user_id, created_at from deposit_addresses order by derivation_index;
      drop table deposit_addresses;
      alter table deposit_addresses_rebuilt rename to deposit_addresses;
      create unique index deposit_addresses_user on deposit_addresses (merchant_id, external_user_id);`);
    const without = invoices
      .replace(' references "deposit_addresses" ("address")', '')
      .replace('CREATE TABLE "invoices"', 'CREATE TABLE invoices_rebuilt');
    expect(without).not.toBe(invoices);
    sqlite.exec(
      `${without}; insert into invoices_rebuilt select * from invoices; drop table invoices; alter table invoices_rebuilt rename to invoices;`,
    );
    for (const part of invoiceParts) sqlite.exec(part);
    sqlite.exec(`create trigger invoices_address_index_fill after insert on invoices when new.address_index is null
        begin update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = new.address) where rowid = new.rowid; end;
      create trigger invoices_address_matches before insert on invoices when new.address_index is not null
        begin select raise(abort, 'invoice address is not the deposit address of its address_index')
          where not exists (select 1 from deposit_addresses d where d.derivation_index = new.address_index and d.address = new.address); end;
      create trigger invoices_address_fixed before update of address, address_index on invoices
          when new.address is not old.address or (old.address_index is not null and new.address_index is not old.address_index)
        begin select raise(abort, 'an invoice keeps its deposit address'); end;`);
    sqlite
      .prepare("insert into kysely_migration (name, timestamp) values ('0041_deposit_addresses_by_index', ?)")
      .run(AT);
  })();
  sqlite.pragma('foreign_keys = ON');
}

describeSqliteOnly("a rebuild of SQLite tables from an earlier layout; PostgreSQL's baseline has the keys")(
  'deposit addresses held to their keys (0042)',
  () => {
    const open: SqliteDatabase[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((d) => d.close()));
    });

    /** A database at 0040 with a merchant, two deposit addresses and an invoice on each. */
    async function at0040(): Promise<SqliteDatabase> {
      const database = openSqlite(path.join(tempDir(), 'keys.db'));
      open.push(database);
      const { error } = await new Migrator({
        db: database.db,
        provider: { getMigrations: async () => MIGRATIONS },
      }).migrateTo('0040_invoice_address_index');
      if (error) throw error;
      const sqlite = database.sqlite;
      sqlite
        .prepare(
          "insert into merchants (id, name, address_mode, approval, enabled, created_at, updated_at) values (?, 'shop', 'per_invoice', 'approved', 1, ?, ?)",
        )
        .run(MERCHANT, AT, AT);
      sqlite.prepare(ADDRESS).run(A, 9, MERCHANT, null, AT);
      sqlite.prepare(ADDRESS).run(B, 3, MERCHANT, 'user-1', AT);
      sqlite.prepare(INVOICE).run('inv-a', 'o-a', A, 9);
      sqlite.prepare(INVOICE).run('inv-b', 'o-b', B, 3);
      return database;
    }

    const schema = (d: SqliteDatabase) =>
      d.sqlite.prepare('select type, name, tbl_name, sql from sqlite_schema order by name').all();
    const rows = (d: SqliteDatabase) => [
      d.sqlite.prepare('select * from deposit_addresses order by derivation_index').all(),
      d.sqlite.prepare('select * from invoices order by id').all(),
    ];

    it('brings a database at 0040 and one that ran the earlier 0041 to the same schema, with every row', async () => {
      const fresh = await at0040();
      const earlier = await at0040();
      const before = rows(fresh);
      asTheEarlier0041Left(earlier.sqlite);
      expect(schema(earlier)).not.toEqual(schema(fresh));

      const later = Object.keys(MIGRATIONS).filter((name) => name > '0042_deposit_address_keys');
      expect((await migrateToLatest(fresh.db)).applied).toEqual([
        '0041_deposit_addresses_by_index',
        '0042_deposit_address_keys',
        ...later,
      ]);
      expect((await migrateToLatest(earlier.db)).applied).toEqual(['0042_deposit_address_keys', ...later]);
      expect(schema(earlier)).toEqual(schema(fresh));
      for (const d of [fresh, earlier]) {
        // Every row with every value it had; columns later migrations add stand beside them.
        expect(rows(d)).toMatchObject(before);
        expect(d.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(d.sqlite.pragma('foreign_key_check')).toEqual([]);
        // The migration run turned enforcement off; every connection has it on again.
        expect(d.settings().writer.foreign_keys).toBe(1);
        // The address is looked up by its own index, the derivation index is the table's key.
        expect(
          d.sqlite.prepare('explain query plan select * from deposit_addresses where address = ?').all(A),
        ).toMatchObject([{ detail: expect.stringMatching(/USING INDEX deposit_addresses_address \(address=\?\)/) }]);
        expect(
          d.sqlite
            .prepare(
              "select count(*) from pragma_table_info('deposit_addresses') where name = 'derivation_index' and pk = 1",
            )
            .pluck()
            .get(),
        ).toBe(1);
      }
    });

    it('refuses a second row with the same address, a deposit address of no merchant, and an invoice on no deposit address', async () => {
      const d = await at0040();
      await migrateToLatest(d.db);
      const sqlite = d.sqlite;
      expect(() => sqlite.prepare(ADDRESS).run(A, 10, MERCHANT, null, AT)).toThrow(
        /UNIQUE constraint failed: deposit_addresses.address/,
      );
      expect(() => sqlite.prepare(ADDRESS).run(C, 9, MERCHANT, null, AT)).toThrow(/UNIQUE|PRIMARY/);
      expect(() => sqlite.prepare(ADDRESS).run(C, 10, MERCHANT, 'user-1', AT)).toThrow(/UNIQUE/);
      expect(() => sqlite.prepare(ADDRESS).run(C, 10, 'no-such-merchant', null, AT)).toThrow(/FOREIGN KEY/);

      // An invoice on an address that is no deposit address: by its text (an older serve sets no
      // index) or with an index that is none.
      expect(() => sqlite.prepare(INVOICE).run('inv-x', 'o-x', C, null)).toThrow(/FOREIGN KEY/);
      expect(() => sqlite.prepare(INVOICE).run('inv-y', 'o-y', C, 77)).toThrow(/FOREIGN KEY|not the deposit address/);
      // A deposit address an invoice holds cannot go.
      expect(() => sqlite.prepare('delete from deposit_addresses where derivation_index = 9').run()).toThrow(
        /FOREIGN KEY/,
      );

      // An invoice's address is the one of its index, and stays so.
      expect(() => sqlite.prepare(INVOICE).run('inv-z', 'o-z', A, 3)).toThrow(
        /not the deposit address of its address_index/,
      );
      expect(() => sqlite.prepare("update invoices set address = ? where id = 'inv-a'").run(B)).toThrow(
        /keeps its deposit address/,
      );
      expect(() => sqlite.prepare("update invoices set address_index = 3 where id = 'inv-a'").run()).toThrow(
        /keeps its deposit address/,
      );

      // An older serve's insert (no address_index) gets the index of its address.
      sqlite.prepare(ADDRESS).run(C, 12, MERCHANT, null, AT);
      sqlite.prepare(INVOICE).run('inv-c', 'o-c', C, null);
      expect(sqlite.prepare("select address_index from invoices where id = 'inv-c'").pluck().get()).toBe(12);
    });

    it('refuses to upgrade a database whose invoice is on no deposit address, and changes nothing', async () => {
      const d = await at0040();
      asTheEarlier0041Left(d.sqlite);
      // As an older serve inserted it: no index, and its address held by no foreign key then.
      d.sqlite.prepare(INVOICE).run('inv-lost', 'o-lost', C, null);
      const before = schema(d);

      await expect(migrateToLatest(d.db)).rejects.toThrow(
        /leave 1 row\(s\) of invoices → deposit_addresses without the row their foreign key names/,
      );
      expect(schema(d)).toEqual(before);
      expect(
        d.sqlite
          .prepare("select count(*) from kysely_migration where name = '0042_deposit_address_keys'")
          .pluck()
          .get(),
      ).toBe(0);
      expect(d.settings().writer.foreign_keys).toBe(1);
    });
  },
);
