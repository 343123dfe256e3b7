import { sql, type Kysely } from 'kysely';
import { rewriteTableSql } from '../schema-edit.js';

/**
 * Deposit addresses are keyed by their derivation index alone: the table is rebuilt with
 * `derivation_index` as its integer primary key, and without the unique index on `address`.
 *
 * Why: an address is a hash, so every invoice creation inserted its key at a random leaf of that
 * index. On a million invoices the leaf was rarely in the cache and each creation wrote its own
 * page to the WAL and the next checkpoint: creations ran at 0.80 of their rate on an empty
 * database, 0.91 without the index (docs/decisions.md, "Release 3, twelfth round"). A derivation
 * index only grows, so its key lands on the page the previous creation wrote.
 *
 * Nothing is lost by it: an address is derived from its index (unique), and a lookup by address
 * goes through the in-memory directory of prefixes → indexes (addresses/directory.ts), then reads
 * the rows by index and compares the text; the CLI's rare lookups scan.
 *
 * `invoices.address` referenced `deposit_addresses(address)`, which a foreign key may do only on a
 * unique key: that clause goes (schema-edit.ts, no rows copied). `invoices.address_index` keeps
 * its foreign key to the index, and the address text is still compared wherever it is read.
 *
 * Runs inside migrateToLatest's one transaction. SQLite cannot turn foreign keys off inside a
 * transaction, and dropping a table that invoices reference would check every invoice: both
 * clauses of invoices are lifted first, the table is rebuilt, and the index's clause put back,
 * then checked against every invoice (6 s in all for 1.27 million addresses on the bench machine).
 *
 * No `down`: the way back is the backup taken before the upgrade (docs/operations.md, "Upgrades").
 */
/** The clauses of invoices on deposit_addresses, as 0005 and 0040 wrote them. */
const BY_ADDRESS = ' references "deposit_addresses" ("address")';
const BY_INDEX = ' references "deposit_addresses" ("derivation_index")';
const INDEX_COLUMN = '"address_index" integer';
const FILL_TRIGGER = sql`create trigger invoices_address_index_fill after insert on invoices when new.address_index is null
      begin
        update invoices set address_index = (select d.derivation_index from deposit_addresses d where d.address = new.address) where rowid = new.rowid;
      end`;

export async function up(outer: Kysely<unknown>): Promise<void> {
  await outer.transaction().execute(async (db) => {
    rewriteTableSql(db, 'invoices', (text) => without(without(text, BY_ADDRESS), BY_INDEX));
    await rebuild(db);
    rewriteTableSql(db, 'invoices', (text) => once(text, INDEX_COLUMN).replace(INDEX_COLUMN, `${INDEX_COLUMN}${BY_INDEX}`));
    await assertKeysHold(db);
    // What the foreign key on the address text enforced: an invoice's address is the deposit
    // address of its index (else a payment to it would be found by neither). A lookup by primary
    // key on the page the creation just wrote, not a random leaf.
    await sql`create trigger invoices_address_matches before insert on invoices when new.address_index is not null
      begin
        select raise(abort, 'invoice address is not the deposit address of its address_index')
          where not exists (select 1 from deposit_addresses d where d.derivation_index = new.address_index and d.address = new.address);
      end`.execute(db);
    // (0040's trigger may still fill a missing index, as an older serve leaves it.)
    await sql`create trigger invoices_address_fixed before update of address, address_index on invoices
        when new.address is not old.address or (old.address_index is not null and new.address_index is not old.address_index)
      begin
        select raise(abort, 'an invoice keeps its deposit address');
      end`.execute(db);
  });
}

/**
 * The clause put back holds for every invoice (0.5 s for 1.2 million on the bench machine). Only
 * its own: what a database holds against its other keys was so before and is not this migration's.
 */
async function assertKeysHold(db: Kysely<unknown>): Promise<void> {
  const broken = await sql<{ rowid: number; parent: string }>`pragma foreign_key_check(invoices)`.execute(db);
  const ours = broken.rows.filter((r) => r.parent === 'deposit_addresses');
  if (ours.length > 0) throw new Error(`${ours.length} invoice(s) have an address index that is no deposit address (rowids ${ours.slice(0, 5).map((r) => r.rowid).join(', ')})`);
}

/**
 * Copies deposit_addresses into a table keyed by the derivation index, in index order.
 * Nothing may reference the table meanwhile (the trigger of 0040 is dropped and made again).
 */
async function rebuild(db: Kysely<unknown>): Promise<void> {
  const count = async (table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]?.n);
  const rows = await count('deposit_addresses');
  await sql`drop trigger if exists invoices_address_index_fill`.execute(db);
  await sql`create table deposit_addresses_rebuilt (
    "address" text not null,
    "derivation_index" integer primary key not null check (derivation_index >= 0),
    "merchant_id" text not null references "merchants" ("id"),
    "external_user_id" text,
    "created_at" text not null
  )`.execute(db);
  await sql`insert into deposit_addresses_rebuilt (address, derivation_index, merchant_id, external_user_id, created_at)
    select address, derivation_index, merchant_id, external_user_id, created_at from deposit_addresses order by derivation_index`.execute(db);
  await sql`drop table deposit_addresses`.execute(db);
  await sql`alter table deposit_addresses_rebuilt rename to deposit_addresses`.execute(db);
  await sql`create unique index deposit_addresses_user on deposit_addresses (merchant_id, external_user_id)`.execute(db);
  await FILL_TRIGGER.execute(db);
  if ((await count('deposit_addresses')) !== rows) throw new Error('deposit_addresses: the rebuilt table does not hold every row');
}

function once(text: string, part: string): string {
  if (text.split(part).length !== 2) throw new Error(`expected ${part} once in: ${text}`);
  return text;
}

function without(text: string, part: string): string {
  return once(text, part).replace(part, '');
}
