import { sql, type Kysely } from 'kysely';

/**
 * The database holds deposit addresses to their keys: each address is unique (a unique index on
 * the text), an invoice's address and its derivation index are foreign keys into
 * deposit_addresses, and a trigger holds the pair to one row. The derivation index stays the
 * table's integer primary key.
 *
 * SQLite changes constraints by rebuilding a table ("Making Other Kinds Of Table Schema Changes"
 * in its ALTER TABLE documentation): create the new table, copy the rows, drop the old table,
 * rename the new one, and create its indexes and triggers again. Both tables are rebuilt from the
 * definitions below whatever an earlier 0041 left, so every database ends at the same schema.
 * migrateToLatest runs this inside its one transaction, with foreign key enforcement off (else
 * dropping a table that others reference would delete through it) and checks afterwards that no
 * foreign key is broken (migrate.ts): an invoice whose address is no deposit address is refused
 * there, and nothing changes.
 *
 * No `down`: the way back is the backup taken before the upgrade (docs/operations/setup.md, "Upgrades").
 */
export async function up(outer: Kysely<unknown>): Promise<void> {
  await outer.transaction().execute(async (db) => {
    const enforced = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    if (Number(enforced.rows[0]?.foreign_keys) !== 0)
      throw new Error(
        '0042 rebuilds tables: run it through migrateToLatest, which turns foreign key enforcement off for the run',
      );
    // The invoices' indexes and triggers of other migrations go with the old table: made again below.
    const kept = await sql<{ sql: string }>`select sql from sqlite_schema
      where tbl_name = 'invoices' and type in ('index', 'trigger') and sql is not null and name not in (${sql.join(ADDRESS_TRIGGERS)})
      order by type, name`.execute(db);
    // They read deposit_addresses, which is renamed below (SQLite checks every trigger then).
    for (const name of ADDRESS_TRIGGERS) await sql`drop trigger if exists ${sql.id(name)}`.execute(db);

    await sql`create table deposit_addresses_new (
      "address" text not null,
      "derivation_index" integer primary key not null check (derivation_index >= 0),
      "merchant_id" text not null references "merchants" ("id"),
      "external_user_id" text,
      "created_at" text not null
    )`.execute(db);
    await sql`insert into deposit_addresses_new (address, derivation_index, merchant_id, external_user_id, created_at)
      select address, derivation_index, merchant_id, external_user_id, created_at from deposit_addresses order by derivation_index`.execute(
      db,
    );
    await sql`drop table deposit_addresses`.execute(db);
    await sql`alter table deposit_addresses_new rename to deposit_addresses`.execute(db);
    await sql`create unique index deposit_addresses_address on deposit_addresses (address)`.execute(db);
    await sql`create unique index deposit_addresses_user on deposit_addresses (merchant_id, external_user_id)`.execute(
      db,
    );

    await sql`create table invoices_new (
      "id" text primary key,
      "merchant_id" text not null references "merchants" ("id"),
      "order_id" text not null,
      "status" text not null check (status in ('created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled')),
      "asset" text not null,
      "network" text not null,
      "decimals" integer not null,
      "address" text not null references "deposit_addresses" ("address"),
      "external_user_id" text,
      "amount_requested" text not null check (${units('amount_requested')}),
      "amount_expected" text not null check (${units('amount_expected')}),
      "amount_received" text not null check (${units('amount_received')}),
      "amount_credited" text not null check (${units('amount_credited')}),
      "service_fee_payer" text not null check (service_fee_payer in ('merchant', 'customer')),
      "service_fee_percent" text not null,
      "service_fee_fixed" text not null check (${units('service_fee_fixed')}),
      "service_fee_amount" text not null check (${units('service_fee_amount')}),
      "return_url" text,
      "cancel_url" text,
      "expires_at" text not null,
      "created_at" text not null,
      "updated_at" text not null,
      "address_index" integer references "deposit_addresses" ("derivation_index")
    )`.execute(db);
    await sql`insert into invoices_new (${sql.join(INVOICE_COLUMNS.map((c) => sql.id(c)))})
      select ${sql.join(INVOICE_COLUMNS.map((c) => sql.id(c)))} from invoices`.execute(db);
    await sql`drop table invoices`.execute(db);
    await sql`alter table invoices_new rename to invoices`.execute(db);
    for (const r of kept.rows) await sql.raw(r.sql).execute(db);

    // An older serve's insert without address_index (0040) gets the index of its address.
    await sql`create trigger invoices_address_index_fill after insert on invoices when new.address_index is null
      begin
        update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = new.address) where rowid = new.rowid;
      end`.execute(db);
    // Two foreign keys do not say that the address is the one of that index: this does.
    await sql`create trigger invoices_address_matches before insert on invoices when new.address_index is not null
      begin
        select raise(abort, 'invoice address is not the deposit address of its address_index')
          where not exists (select 1 from deposit_addresses d where d.derivation_index = new.address_index and d.address = new.address);
      end`.execute(db);
    await sql`create trigger invoices_address_fixed before update of address, address_index on invoices
        when new.address is not old.address or (old.address_index is not null and new.address_index is not old.address_index)
      begin
        select raise(abort, 'an invoice keeps its deposit address');
      end`.execute(db);
  });
}

const ADDRESS_TRIGGERS = ['invoices_address_index_fill', 'invoices_address_matches', 'invoices_address_fixed'];

const INVOICE_COLUMNS = [
  'id',
  'merchant_id',
  'order_id',
  'status',
  'asset',
  'network',
  'decimals',
  'address',
  'external_user_id',
  'amount_requested',
  'amount_expected',
  'amount_received',
  'amount_credited',
  'service_fee_payer',
  'service_fee_percent',
  'service_fee_fixed',
  'service_fee_amount',
  'return_url',
  'cancel_url',
  'expires_at',
  'created_at',
  'updated_at',
  'address_index',
];

/** Base units, as 0005 checks them: digits only, at most 78 of them (2^256, a TRC20 uint256). */
function units(column: string) {
  const c = sql.id(column);
  return sql`${c} glob '[0-9]*' and ${c} not glob '*[^0-9]*' and length(${c}) <= 78`;
}
